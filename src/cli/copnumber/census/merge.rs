//! `retrograde copnumber merge`, and the shard files a census run finds
//! in its directory: read, checked (a regular file, UTF-8, named as the
//! shard it holds) and merged.
use std::path::{Path, PathBuf};

use clap::Args as ClapArgs;
use retrograde::copnumber::{merge, Census, ShardFile};

use super::print::print_census;
use super::{refused, write_text};
use crate::cli::failure::Failure;

/// Flags of `copnumber merge`.
#[derive(ClapArgs, Debug)]
pub(crate) struct MergeArgs {
    /// Shard files, or directories whose `shard-*.txt` files are read.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Write the merged census file here (a temporary file renamed into
    /// place).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// The result as one JSON object.
    #[arg(long)]
    json: bool,
}

/// Whether a directory entry is a shard file.
fn is_shard_name(name: &str) -> bool {
    name.starts_with("shard-") && name.ends_with(".txt")
}

/// The shard files of a directory, by name.
pub(super) fn shard_paths(dir: &Path) -> Result<Vec<PathBuf>, Failure> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| refused(format!("cannot read {}: {e}", dir.display())))?;
    let mut paths = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| refused(format!("cannot read {}: {e}", dir.display())))?;
        let name = entry.file_name();
        if is_shard_name(&name.to_string_lossy()) {
            paths.push(entry.path());
        }
    }
    paths.sort();
    Ok(paths)
}

/// A shard file read and checked (exit status 2 when it cannot be used).
pub(super) fn read_shard(path: &Path) -> Result<ShardFile, Failure> {
    let text =
        read_regular(path).map_err(|e| refused(format!("cannot read {}: {e}", path.display())))?;
    let text = String::from_utf8(text).map_err(|_| {
        refused(format!(
            "{}: not a census shard file (not UTF-8 text)",
            path.display()
        ))
    })?;
    let name = path.display().to_string();
    let shard = ShardFile::parse(&name, &text).map_err(|e| refused(e.to_string()))?;
    let want = ShardFile::name(shard.index, shard.key.shards);
    if path
        .file_name()
        .is_some_and(|n| n.to_string_lossy() != want)
    {
        return Err(refused(format!(
            "{name}: holds shard {} of {}, whose file is named {want}; a renamed file is not merged",
            shard.index, shard.key.shards
        )));
    }
    Ok(shard)
}

/// The bytes of `path` if it is a regular file: a FIFO would wait for a
/// writer forever (the open does not block, `O_NONBLOCK`), a device such
/// as `/dev/zero` would never end. The type is checked on the open file,
/// so the answer holds for the file actually read.
fn read_regular(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let meta = file.metadata()?;
    let kind = meta.file_type();
    if !kind.is_file() {
        let what = if kind.is_dir() {
            "a directory"
        } else if kind.is_fifo() {
            "a FIFO (named pipe)"
        } else if kind.is_socket() {
            "a socket"
        } else {
            "a device"
        };
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("it is {what}, not a census shard file"),
        ));
    }
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The shard files read, checked and merged.
pub(super) fn merge_paths(paths: &[PathBuf]) -> Result<Census, Failure> {
    let mut shards = Vec::with_capacity(paths.len());
    for p in paths {
        shards.push((p.display().to_string(), read_shard(p)?));
    }
    merge(&shards).map_err(|e| refused(e.to_string()))
}

/// Runs `copnumber merge`.
pub(super) fn run_merge(args: &MergeArgs) -> Result<i32, Failure> {
    let mut paths = Vec::new();
    for p in &args.paths {
        if p.is_dir() {
            let found = shard_paths(p)?;
            if found.is_empty() {
                return Err(refused(format!(
                    "{}: no shard files (shard-*.txt) in this directory",
                    p.display()
                )));
            }
            paths.extend(found);
        } else {
            paths.push(p.clone());
        }
    }
    // The output is checked before the work, and never one of the inputs.
    if let Some(out) = &args.out {
        let same = |p: &PathBuf| {
            std::fs::canonicalize(p)
                .ok()
                .zip(std::fs::canonicalize(out).ok())
                .is_some_and(|(a, b)| a == b)
        };
        if paths.iter().any(same) {
            return Err(refused(format!(
                "--out {}: is one of the shard files merged",
                out.display()
            )));
        }
    }
    let census = merge_paths(&paths)?;
    if let Some(out) = &args.out {
        write_text(out, &census.to_text())?;
    }
    print_census(&census, args.out.as_deref(), args.json, None)?;
    Ok(0)
}
