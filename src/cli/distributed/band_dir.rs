//! One process's checkpoint directory of a partitioned solve
//! (`--checkpoint DIR`, `--resume DIR`): `DIR/process-I`, one snapshot
//! file per band and level, as the library's [`BandSink`] and
//! [`BandSource`]; the bit engine's bands, one per process.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::Result;
use retrograde::distributed::{BandCheckpoint, BandSink, BandSource, GridBandCheckpoint};
use retrograde::{Due, Sink, Snapshot};

use crate::cli::common::UsageError;
use crate::cli::failure::Failure;
use crate::cli::output::OutputTarget;

/// Which game's band snapshots a directory holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kernel {
    /// The bit engine's with one cop: one band per process,
    /// `band-0.level-L.rcp` holds level L finished.
    Bits,
    /// The bit engine's with several cops, named as [`Kernel::Bits`]'s.
    SeveralBits,
}

/// One process's snapshots: `DIR/process-I/band-J.level-L.rcp` for band J
/// (index within the process) at level L (see [`Kernel`]).
pub(super) struct BandDir {
    pub(super) dir: PathBuf,
    fingerprint: Vec<(String, String)>,
    /// Checkpointing: minutes between snapshots (process 0 decides).
    every: Duration,
    last: Mutex<Instant>,
    /// Resuming: the newest level every band holds.
    latest: u32,
    kernel: Kernel,
    /// Resuming on the bit engine: the snapshots checked by
    /// [`BandDir::open`], by level, kept open so that the resume does not
    /// read each file through once more to check it again (a process's
    /// share of the arrays, hundreds of MiB).
    checked: Mutex<Vec<(u32, GridBandCheckpoint)>>,
}

impl BandDir {
    fn file(&self, band: usize, level: u32) -> PathBuf {
        self.dir.join(format!("band-{band}.level-{level}.rcp"))
    }

    /// (band, level) of every snapshot file in the directory.
    fn files(&self) -> std::io::Result<Vec<(usize, u32)>> {
        let mut found = Vec::new();
        for entry in std::fs::read_dir(&self.dir)? {
            let name = entry?.file_name();
            let parsed = name
                .to_str()
                .and_then(|n| n.strip_prefix("band-")?.strip_suffix(".rcp"))
                .and_then(|n| n.split_once(".level-"))
                .and_then(|(b, l)| Some((b.parse().ok()?, l.parse().ok()?)));
            found.extend(parsed);
        }
        Ok(found)
    }

    /// A sink into `dir`/process-`process` (created if missing; `dir`
    /// only in a directory that exists).
    pub(super) fn sink(
        dir: &Path,
        process: usize,
        every_minutes: f64,
        fingerprint: Vec<(String, String)>,
    ) -> Result<BandDir, Failure> {
        let every = crate::cli::checkpoint::interval(every_minutes)?;
        crate::cli::checkpoint::make_dir(dir)?;
        let dir = dir.join(format!("process-{process}"));
        std::fs::create_dir_all(&dir)
            .map_err(|e| UsageError(format!("--checkpoint {}: {e}", dir.display())))?;
        Ok(BandDir {
            dir,
            fingerprint,
            every,
            last: Mutex::new(Instant::now()),
            latest: 0,
            kernel: Kernel::Bits,
            checked: Mutex::new(Vec::new()),
        })
    }

    /// The snapshots of process `process` in `dir`, of `kernel`: finds
    /// the newest level its band holds, and checks every file of a
    /// complete level against `fingerprint`.
    pub(super) fn open(
        dir: &Path,
        process: usize,
        fingerprint: &[(String, String)],
        kernel: Kernel,
    ) -> Result<BandDir, Failure> {
        let mut source = BandDir {
            dir: dir.join(format!("process-{process}")),
            fingerprint: fingerprint.to_vec(),
            every: Duration::ZERO,
            last: Mutex::new(Instant::now()),
            latest: 0,
            kernel,
            checked: Mutex::new(Vec::new()),
        };
        let shown = source.dir.display().to_string();
        let files = source.files().map_err(|e| {
            UsageError(format!(
                "--resume {}: no snapshots of process {process} ({shown}: {e}); was the checkpoint made with as many processes?",
                dir.display()
            ))
        })?;
        // One band a process: band 0.
        let mut complete: Vec<u32> = files.iter().filter(|f| f.0 == 0).map(|f| f.1).collect();
        complete.sort_unstable();
        let Some(&latest) = complete.last() else {
            return Err(UsageError(format!(
                "--resume {}: {shown} holds no complete snapshot (no band-0.level-L.rcp file)",
                dir.display()
            ))
            .into());
        };
        for &level in &complete {
            let saved = source.read_grid(level)?;
            source.checked_grid().push((level, saved));
        }
        source.latest = latest;
        Ok(source)
    }

    /// Opens and checks this process's bit-engine band snapshot of
    /// `level` (its checksum read as a stream; the arrays stay in the
    /// file until the resume reads them into the engine's).
    fn read_grid(&self, level: u32) -> Result<GridBandCheckpoint> {
        let path = self.file(0, level);
        let saved = match self.kernel {
            Kernel::SeveralBits => GridBandCheckpoint::open_several(&path)?,
            _ => GridBandCheckpoint::open(&path)?,
        };
        self.check_fingerprint(&path, saved.fingerprint())?;
        Ok(saved)
    }

    /// The bit-engine snapshots checked so far.
    fn checked_grid(&self) -> std::sync::MutexGuard<'_, Vec<(u32, GridBandCheckpoint)>> {
        self.checked.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Refuses a snapshot at `path` made with another fingerprint
    /// (`theirs`): another map, rules or cluster shape.
    fn check_fingerprint(&self, path: &Path, theirs: &[(String, String)]) -> Result<()> {
        for (name, value) in &self.fingerprint {
            let old = theirs.iter().find(|(n, _)| n == name).map(|(_, v)| v);
            if old != Some(value) {
                return Err(UsageError(format!(
                    "--resume {}: the checkpoint was made with another {name}: {} there, {value} now",
                    path.display(),
                    old.map_or("none", |v| v.as_str())
                ))
                .into());
            }
        }
        Ok(())
    }
}

impl Sink for BandDir {
    fn poll(&self, _level: u32) -> Due {
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if last.elapsed() < self.every {
            return Due::No;
        }
        *last = Instant::now();
        Due::Save
    }

    fn save(&self, snapshot: &dyn Snapshot) -> retrograde::Result<()> {
        // Only a partitioned solve is handed this sink: its snapshots are
        // bands; a whole solve's would have no file here.
        let Some(band) = snapshot.band() else {
            return Err(retrograde::Error::Io {
                path: self.dir.clone(),
                source: std::io::Error::other("a band directory keeps only band snapshots"),
            });
        };
        let path = self.file(band, snapshot.level());
        let failed = |e: String| retrograde::Error::Io {
            path: path.clone(),
            source: std::io::Error::other(e),
        };
        OutputTarget::check("--checkpoint", &path)
            .map_err(|e| failed(e.0))?
            .write_with(|out| snapshot.write_to(&self.fingerprint, out))
            .map_err(|e| failed(format!("{e:#}")))?;
        // The interval runs from the end of a snapshot, so that slow disks
        // do not turn it into one snapshot per level.
        *self.last.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
        Ok(())
    }
}

impl BandDir {
    /// A failure to read band `band`'s snapshot of `level` as the
    /// library's error, naming the file.
    fn as_checkpoint_error(&self, e: anyhow::Error, band: usize, level: u32) -> retrograde::Error {
        match e.downcast::<retrograde::Error>() {
            Ok(e) => e,
            Err(e) => retrograde::Error::Checkpoint {
                path: self.file(band, level),
                offset: 0,
                message: format!("{e:#}"),
            },
        }
    }
}

impl BandSink for BandDir {
    fn confirmed(&self, band: usize, level: u32) {
        // Best effort: a snapshot left behind costs disk, not correctness.
        for (b, l) in self.files().unwrap_or_default() {
            if b == band && l < level {
                let _ = std::fs::remove_file(self.file(b, l));
            }
        }
    }
}

impl BandSource for BandDir {
    fn latest(&self) -> u32 {
        self.latest
    }

    fn load(&self, band: usize, level: u32) -> retrograde::Result<BandCheckpoint> {
        // Every partitioned solve of the CLI runs the bit engine, which
        // asks `load_grid`: the counter engine's snapshots are not kept.
        let e = anyhow::anyhow!("not a band snapshot of the bit engine");
        Err(self.as_checkpoint_error(e, band, level))
    }

    fn load_grid(&self, level: u32) -> retrograde::Result<GridBandCheckpoint> {
        let mut checked = self.checked_grid();
        if let Some(at) = checked.iter().position(|(l, _)| *l == level) {
            return Ok(checked.swap_remove(at).1);
        }
        drop(checked);
        self.read_grid(level)
            .map_err(|e| self.as_checkpoint_error(e, 0, level))
    }

    fn chosen(&self, level: u32) {
        self.checked_grid().retain(|(l, _)| *l == level);
        for (b, l) in self.files().unwrap_or_default() {
            if l > level {
                let _ = std::fs::remove_file(self.file(b, l));
            }
        }
        // Temporary files of snapshots cut off by the crash (no writer of
        // this process runs yet).
        let entries = std::fs::read_dir(&self.dir).into_iter().flatten().flatten();
        for entry in entries {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with(".band-") && name.ends_with(".tmp") {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}
