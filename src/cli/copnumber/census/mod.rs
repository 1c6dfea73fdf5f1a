//! `retrograde copnumber census` and `retrograde copnumber merge`: the
//! cop number, a winning placement and the capture time of every graph of
//! a generator (nauty's `geng` by default) cut into shards with its
//! `res/mod`, or of many graph6 files, one shard each; `--jobs` shards at
//! once, one generator process and one solving thread each. Each shard's
//! result is written to the output directory as it finishes (a temporary
//! file renamed into place), so a run stopped or killed continues where it
//! stood when run again, a shard at a time; shards run on other machines
//! (`--shard`) are put together with `merge`, which refuses shards of
//! another census, damaged files, and duplicate or missing shards. The
//! library's `copnumber::census` holds the tallies, files and checksums;
//! this module runs the shards (`shard.rs`) and prints (`print.rs`).

mod merge;
mod print;
mod shard;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use anyhow::Context;
use clap::{Args as ClapArgs, Subcommand};
use retrograde::copnumber::{key_difference, CensusKey, ShardFile};

use super::super::common::UsageError;
use super::super::output::{defer_stop_signals, stop_requested, write_atomically};
use crate::cli::failure::Failure;
use merge::{merge_paths, read_shard, run_merge, shard_paths, MergeArgs};
use print::{print_census, CheckSummary};
use shard::{run_shard, Checked, Shards};

/// The subcommands of `copnumber`.
#[derive(Subcommand, Debug)]
pub(crate) enum CensusCommand {
    /// Every graph of a generator's shards (default `nauty-geng -cq N
    /// RES/MOD`) or of many graph6 files: counts by cop number, capture
    /// times, the extreme graphs, a checksum; resumable, shard by shard.
    Census(CensusArgs),
    /// Merge the shard files of one census (run apart, e.g. on other
    /// machines) into its result; refuses shards of another census,
    /// damaged files, duplicate or missing shards (exit status 2).
    Merge(MergeArgs),
}

/// The largest `--vertices`: the largest order a graph6 line may have
/// (the library's graph6 reader refuses larger ones).
const MAX_VERTICES: u32 = 1 << 16;

/// Flags of `copnumber census`.
#[derive(ClapArgs, Debug)]
pub(crate) struct CensusArgs {
    /// graph6 files to read instead of a generator, one shard each (in the
    /// order given).
    #[arg(conflicts_with_all = ["vertices", "generator", "shards"])]
    files: Vec<PathBuf>,
    /// The order of the graphs, 1 to 65536 (graph6's largest): the
    /// generator's placeholder `n` (in braces; the help cannot spell it,
    /// as clap reads it as a line end). A generated graph of another order
    /// stops the run (exit status 2).
    #[arg(long, short = 'n', value_name = "N", required_unless_present = "files",
          value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_VERTICES)))]
    vertices: Option<u32>,
    /// Shards the census is cut into: the generator's `{mod}` (part of
    /// what names the census: shards of censuses cut otherwise are not
    /// merged).
    #[arg(long, value_name = "MOD", default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    shards: u32,
    /// The generator's command, run by `sh -c` once per shard with the
    /// placeholders `n`, `res` and `mod` in braces replaced by the order,
    /// the shard and the shards; it prints graph6, one graph a line
    /// [default: `nauty-geng -cq` n res/mod, those three in braces, or
    /// `geng` when there is no `nauty-geng`; see the guide].
    #[arg(long, value_name = "COMMAND")]
    generator: Option<String>,
    /// Only these shards: `I` or `A-B` (inclusive), for a census split
    /// between machines; `merge` puts the shard files together.
    #[arg(long, value_name = "I|A-B", value_parser = parse_range)]
    shard: Option<(u32, u32)>,
    /// Shards run at once [default: the cores].
    #[arg(long, short = 'j', value_name = "J", value_parser = clap::value_parser!(u32).range(1..=4096))]
    jobs: Option<u32>,
    /// Directory of the shard files and of the merged `census.txt`;
    /// created if missing; a run continues the shards already there.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Most cops tried (1 to 4); a graph needing more counts as "more".
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=4))]
    max_cops: u32,
    /// Check every verdict by corner elimination, written apart from the
    /// solver: cop number 1 exactly for the dismantlable graphs; a
    /// disagreement stops the run (exit status 1). Shards already in
    /// --out are not computed again, so not checked.
    #[arg(long)]
    check: bool,
    /// The result as one JSON object.
    #[arg(long)]
    json: bool,
    /// No progress bar (there is none when standard error is not a
    /// terminal).
    #[arg(long, short)]
    quiet: bool,
}

/// `I` or `A-B`.
fn parse_range(s: &str) -> Result<(u32, u32), String> {
    let bad = || format!("expected a shard index I or a range A-B, found `{s}`");
    let (a, b) = s.split_once('-').unwrap_or((s, s));
    let a: u32 = a.trim().parse().map_err(|_| bad())?;
    let b: u32 = b.trim().parse().map_err(|_| bad())?;
    if a > b {
        return Err(format!("--shard {s}: the range is empty ({a} > {b})"));
    }
    Ok((a, b))
}

/// Runs `copnumber census` or `copnumber merge`.
pub(crate) fn run(command: CensusCommand) -> Result<i32, Failure> {
    match command {
        CensusCommand::Census(args) => run_census(&args),
        CensusCommand::Merge(args) => run_merge(&args),
    }
}

/// The name of the merged result in a census directory.
const CENSUS_FILE: &str = "census.txt";

/// A refusal: exit status 2.
fn refused(message: String) -> Failure {
    Failure {
        status: crate::cli::failure::EXIT_INPUT,
        error: UsageError(message).into(),
    }
}

/// The generator by default: `nauty-geng` (Debian's name) when it is on
/// the path, else `geng`.
fn default_generator() -> String {
    let on_path = |name: &str| {
        std::env::var_os("PATH")
            .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(name).is_file()))
    };
    let geng = if on_path("nauty-geng") || !on_path("geng") {
        "nauty-geng"
    } else {
        "geng"
    };
    format!("{geng} -cq {{n}} {{res}}/{{mod}}")
}

/// Runs `copnumber census`.
fn run_census(args: &CensusArgs) -> Result<i32, Failure> {
    let key = if args.files.is_empty() {
        let generator = args.generator.clone().unwrap_or_else(default_generator);
        if generator.contains('\n') {
            return Err(refused("--generator: a command of one line".into()));
        }
        if args.shards > 1 && !(generator.contains("{res}") && generator.contains("{mod}")) {
            return Err(refused(format!(
                "--generator `{generator}`: {} shards need `{{res}}` and `{{mod}}` in the command, or each shard would read every graph",
                args.shards
            )));
        }
        CensusKey {
            source: generator,
            vertices: args.vertices,
            shards: args.shards,
            max_cops: args.max_cops,
        }
    } else {
        for f in &args.files {
            if f.to_string_lossy().contains('\n') {
                return Err(refused(format!(
                    "{:?}: a file name with a line end cannot be named in a census file",
                    f.display().to_string()
                )));
            }
            if !f.is_file() {
                return Err(refused(format!("{}: not a readable file", f.display())));
            }
        }
        CensusKey {
            source: "files".into(),
            vertices: None,
            shards: args.files.len() as u32,
            max_cops: args.max_cops,
        }
    };
    let (first, last) = args.shard.unwrap_or((0, key.shards - 1));
    if last >= key.shards {
        return Err(refused(format!(
            "--shard: shards are numbered 0 to {} in a census of {}",
            key.shards - 1,
            key.shards
        )));
    }
    let dir = &args.out;
    if dir.exists() && !dir.is_dir() {
        return Err(refused(format!(
            "--out {}: expected a directory (of shard files), found a file",
            dir.display()
        )));
    }
    std::fs::create_dir_all(dir)
        .map_err(|e| refused(format!("--out {}: cannot create it: {e}", dir.display())))?;
    // Held until the run ends: a second run into DIR would overwrite this
    // one's shards with its own.
    let _lock = lock_dir(dir)?;
    // The shards already there: of this census, or the run is refused.
    let mut done = vec![false; key.shards as usize];
    for path in shard_paths(dir)? {
        let shard = read_shard(&path).map_err(|f| {
            refused(format!(
                "{:#}; remove it to compute its shard again",
                f.error
            ))
        })?;
        if let Some(why) = key_difference(&key, &shard.key) {
            return Err(refused(format!(
                "--out {}: holds shards of another census ({}: {why}); choose another --out",
                dir.display(),
                path.display()
            )));
        }
        // The key of a census of files names only their number: the files
        // themselves are the shards' inputs.
        if let Some(file) = args.files.get(shard.index as usize) {
            if !same_file(&shard.input, file) {
                return Err(refused(format!(
                    "--out {}: holds shards of another census ({}: shard {} read `{}`, this census reads `{}` there); choose another --out",
                    dir.display(),
                    path.display(),
                    shard.index,
                    shard.input,
                    file.display()
                )));
            }
        }
        done[shard.index as usize] = true;
    }
    let pending: Vec<u32> = (first..=last).filter(|&i| !done[i as usize]).collect();
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, usize::from),
        |j| j as usize,
    );
    let shards = Shards {
        key: key.clone(),
        files: args.files.clone(),
        stop: AtomicBool::new(false),
        graphs: AtomicU64::new(0),
        check: args.check.then(Checked::default),
    };
    defer_stop_signals();
    let bar = (!args.quiet && std::io::stderr().is_terminal() && !pending.is_empty()).then(|| {
        let b = indicatif::ProgressBar::new(pending.len() as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:30} {pos}/{len} shards {elapsed} (eta {eta}) {msg}",
            )
            .expect("template"),
        );
        b
    });
    let started = std::time::Instant::now();
    let next = AtomicUsize::new(0);
    // Shards written by this run, and workers still at work.
    let finished = AtomicUsize::new(0);
    let workers = jobs.min(pending.len());
    let working = AtomicUsize::new(workers);
    let failure: Mutex<Option<Failure>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                while let Some(&index) = pending.get(next.fetch_add(1, Ordering::SeqCst)) {
                    if shards.stopping() {
                        break;
                    }
                    match run_and_write(&shards, index, dir) {
                        Ok(true) => {
                            finished.fetch_add(1, Ordering::SeqCst);
                        }
                        Ok(false) => break,
                        Err(f) => {
                            shards.stop.store(true, Ordering::SeqCst);
                            let mut first = failure.lock().expect("no panic holds it");
                            if first.is_none() {
                                *first = Some(f);
                            }
                            break;
                        }
                    }
                }
                working.fetch_sub(1, Ordering::SeqCst);
            });
        }
        if let Some(b) = &bar {
            while working.load(Ordering::SeqCst) > 0 {
                let graphs = shards.graphs.load(Ordering::Relaxed);
                let rate = graphs as f64 / started.elapsed().as_secs_f64().max(1e-3);
                b.set_position(finished.load(Ordering::SeqCst) as u64);
                b.set_message(format!("{graphs} graphs, {rate:.0}/s"));
                std::thread::sleep(Duration::from_millis(200));
            }
        }
    });
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    if let Some(f) = failure.into_inner().expect("no panic holds it") {
        return Err(f);
    }
    if let Some(signal) = stop_requested() {
        let there = done.iter().filter(|&&d| d).count() + finished.load(Ordering::SeqCst);
        say!(
            "stopped: {there} of the {} shards are in {}; run the same command again to continue",
            key.shards,
            dir.display()
        );
        return Ok(128 + signal);
    }
    let seconds = started.elapsed().as_secs_f64();
    if !args.quiet && !pending.is_empty() {
        say!(
            "{} shards, {} graphs in {seconds:.1} s",
            pending.len(),
            shards.graphs.load(Ordering::SeqCst)
        );
    }
    // Merged once every shard is there.
    let paths = shard_paths(dir)?;
    if paths.len() < key.shards as usize {
        let missing: Vec<String> = {
            let mut have = vec![false; key.shards as usize];
            for p in &paths {
                have[read_shard(p)?.index as usize] = true;
            }
            ranges(&have)
        };
        say!(
            "{} of the {} shards are in {}; still to run: --shard {} (then copnumber merge)",
            paths.len(),
            key.shards,
            dir.display(),
            missing.join(", --shard ")
        );
        return Ok(0);
    }
    let census = merge_paths(&paths)?;
    let out = dir.join(CENSUS_FILE);
    write_text(&out, &census.to_text())?;
    let check = shards.check.as_ref().map(|c| CheckSummary {
        shards: c.shards.load(Ordering::SeqCst),
        graphs: c.graphs.load(Ordering::SeqCst),
        dismantlable: c.dismantlable.load(Ordering::SeqCst),
    });
    print_census(&census, Some(&out), args.json, check.as_ref())?;
    Ok(0)
}

/// Whether a shard's recorded input names `file`: the same name, or the
/// same file reached by another name (another working directory).
fn same_file(input: &str, file: &Path) -> bool {
    if Path::new(input) == file {
        return true;
    }
    match (std::fs::canonicalize(input), std::fs::canonicalize(file)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// The name of the lock file a census run holds in its directory.
const LOCK_FILE: &str = ".census.lock";

/// Takes the census directory for this run: an exclusive `flock` on
/// `DIR/.census.lock`, released when the file is closed (at the latest
/// when the process ends, however it ends, so a killed run leaves no stale
/// lock). Exit status 2 when another run holds it.
fn lock_dir(dir: &Path) -> Result<std::fs::File, Failure> {
    use std::os::unix::io::AsRawFd;
    let path = dir.join(LOCK_FILE);
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| Failure {
            status: 1,
            error: anyhow::anyhow!("cannot open {}: {e}", path.display()),
        })?;
    loop {
        // SAFETY: flock on a descriptor this function owns and keeps open
        // (the returned File); no memory is passed.
        let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        if rc == 0 {
            return Ok(file);
        }
        let e = std::io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EINTR) => continue,
            Some(libc::EWOULDBLOCK) => {
                return Err(refused(format!(
                    "--out {}: another `copnumber census` is running into this directory (it holds {}); wait for it to end, or choose another --out",
                    dir.display(),
                    path.display()
                )))
            }
            _ => {
                return Err(Failure {
                    status: 1,
                    error: anyhow::anyhow!("cannot lock {}: {e}", path.display()),
                })
            }
        }
    }
}

/// Runs shard `index` and writes its file into `dir` (a temporary file
/// renamed into place): `false` when the run is stopping and nothing was
/// written.
fn run_and_write(shards: &Shards, index: u32, dir: &Path) -> Result<bool, Failure> {
    let Some(file) = run_shard(shards, index)? else {
        return Ok(false);
    };
    let path = dir.join(ShardFile::name(index, shards.key.shards));
    write_text(&path, &file.to_text())?;
    Ok(true)
}

/// Writes `text` to `path` through a temporary file (exit status 1 naming
/// the path when it cannot).
fn write_text(path: &Path, text: &str) -> Result<(), Failure> {
    write_atomically(path, |out| out.write_all(text.as_bytes()))
        .with_context(|| format!("cannot write {}", path.display()))
        .map_err(|e| Failure {
            status: 1,
            error: e,
        })
}

/// The indices not in `have`, as `A-B` ranges.
fn ranges(have: &[bool]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < have.len() {
        if have[i] {
            i += 1;
            continue;
        }
        let start = i;
        while i < have.len() && !have[i] {
            i += 1;
        }
        out.push(if i - 1 == start {
            start.to_string()
        } else {
            format!("{start}-{}", i - 1)
        });
    }
    out
}
