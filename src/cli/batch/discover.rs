//! Finding the maps of a batch: files named on the command line, and
//! directories walked recursively in sorted order, telling maps from other
//! files by the library's format sniffing ([`retrograde::sniff_map`]).
//!
//! Nothing that is not a regular file is ever opened while walking (a FIFO
//! would block the batch forever, a device could stream without end): such
//! entries with a map extension become error rows, others are ignored. The
//! same file reached under two spellings is taken once.

use std::collections::HashSet;
use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

/// Bytes read from a `.txt` or `.map` file to decide whether it is a map.
const SNIFF_BYTES: usize = 4096;

/// What the walk found.
#[derive(Default)]
pub(super) struct Discovered {
    /// Map files, sorted, each file once.
    pub(super) maps: Vec<PathBuf>,
    /// Paths that could not be walked or read, with the error (they become
    /// rows).
    pub(super) broken: Vec<(PathBuf, String)>,
    /// Files in walked directories that are not maps.
    pub(super) ignored: usize,
}

/// Collects the maps named by `paths`: files as given, directories walked.
pub(super) fn discover(paths: &[PathBuf]) -> Discovered {
    let mut found = Discovered::default();
    let mut visited = HashSet::new();
    for path in paths {
        if path.is_dir() {
            walk(path, &mut visited, &mut found);
        } else {
            // Missing and unreadable files are taken too: loading them gives
            // the row its error.
            found.maps.push(path.clone());
        }
    }
    found.maps.sort();
    found.maps.dedup();
    // `d/a.txt` and `./d/a.txt` (or a link to it) are one file: keep the
    // first spelling in sorted order.
    let mut files = HashSet::new();
    found
        .maps
        .retain(|p| files.insert(std::fs::canonicalize(p).unwrap_or_else(|_| p.clone())));
    found
}

/// Walks `dir` recursively in sorted order. Symbolic links are followed,
/// but each directory is entered once (by canonical path), so link loops
/// end and a directory linked twice is not solved twice.
fn walk(dir: &Path, visited: &mut HashSet<PathBuf>, found: &mut Discovered) {
    let canonical = match std::fs::canonicalize(dir) {
        Ok(c) => c,
        Err(e) => {
            found
                .broken
                .push((dir.to_path_buf(), format!("{}: {e}", dir.display())));
            return;
        }
    };
    if !visited.insert(canonical) {
        return;
    }
    let entries = match std::fs::read_dir(dir).and_then(|it| it.collect::<Result<Vec<_>, _>>()) {
        Ok(entries) => entries,
        Err(e) => {
            found.broken.push((
                dir.to_path_buf(),
                format!("{}: cannot read directory: {e}", dir.display()),
            ));
            return;
        }
    };
    let mut paths: Vec<PathBuf> = entries.iter().map(std::fs::DirEntry::path).collect();
    paths.sort();
    for path in paths {
        // `metadata` follows links; a dangling link fails and is treated
        // like an unreadable file of its extension.
        match std::fs::metadata(&path) {
            Ok(meta) if meta.is_dir() => walk(&path, visited, found),
            Ok(meta) if !meta.is_file() => match special(&meta.file_type()) {
                Some(kind) if has_map_extension(&path).is_some() => found.broken.push((
                    path.clone(),
                    format!("{}: not a regular file ({kind}); not read", path.display()),
                )),
                _ => found.ignored += 1,
            },
            _ if is_map_file(&path) => found.maps.push(path),
            _ => found.ignored += 1,
        }
    }
}

/// What kind of special file this is, if it is one.
fn special(kind: &std::fs::FileType) -> Option<&'static str> {
    if kind.is_fifo() {
        Some("a FIFO")
    } else if kind.is_socket() {
        Some("a socket")
    } else if kind.is_char_device() {
        Some("a character device")
    } else if kind.is_block_device() {
        Some("a block device")
    } else {
        None
    }
}

/// `Some(true)` for `.map`, `Some(false)` for `.txt`, `None` otherwise.
fn has_map_extension(path: &Path) -> Option<bool> {
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    match extension.as_deref() {
        Some("map") => Some(true),
        Some("txt") => Some(false),
        _ => None,
    }
}

/// The content check for regular files met in a directory walk.
///
/// A `.map` file is taken unless it is readable text whose first line
/// announces no map format: the extension says it is a map, so an empty,
/// binary or unreadable one is reported, not hidden. A `.txt` file is
/// generic text, so it is taken only when its first line is a seed header
/// `ROWS COLUMNS` (or a MovingAI `type` line), whatever follows: a map
/// damaged after its header (a NUL or invalid UTF-8 in a row) is a map,
/// and solving it gives its error row.
fn is_map_file(path: &Path) -> bool {
    let Some(is_map) = has_map_extension(path) else {
        return false;
    };
    let mut head = Vec::with_capacity(SNIFF_BYTES);
    let read = File::open(path).and_then(|f| f.take(SNIFF_BYTES as u64).read_to_end(&mut head));
    if read.is_err() {
        return is_map;
    }
    if !is_map {
        // Only the first line is looked at: binary bytes after it do not
        // hide a map.
        return retrograde::sniff_map(&head).is_some();
    }
    let binary =
        head.contains(&0) || std::str::from_utf8(&head).is_err_and(|e| e.error_len().is_some());
    if head.iter().all(u8::is_ascii_whitespace) || binary {
        return is_map;
    }
    retrograde::sniff_map(&head).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `.txt` file whose first line is a seed header is a map whatever
    /// bytes follow (its error row tells what is wrong); other `.txt`
    /// files are ignored, and `.map` files are taken as before.
    #[test]
    fn txt_maps_damaged_after_their_header_are_found() {
        let dir = std::env::temp_dir().join(format!("discover-damaged-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let files: [(&str, &[u8]); 7] = [
            ("a.txt", b"3 4\n.\x00..\n....\n....\n"),
            ("b.txt", b"3 4\n..\xff.\n....\n....\n"),
            ("good.txt", b"2 3\nC.E\n...\n"),
            ("binary.txt", b"\x00\x01\x02 3 4\n"),
            ("notes.txt", b"3 4 apples\n"),
            ("header-broken.txt", b"3 \xff4\n....\n"),
            ("binary.map", b"\x00\xff"),
        ];
        for (name, bytes) in files {
            std::fs::write(dir.join(name), bytes).unwrap();
        }
        let found = discover(std::slice::from_ref(&dir));
        let names: Vec<String> = found
            .maps
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["a.txt", "b.txt", "binary.map", "good.txt"]);
        assert_eq!(found.ignored, 3);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
