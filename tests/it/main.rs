//! The single integration-test binary: each module below holds one kind of
//! test. Run with `cargo test --release --test it`.

/// Engines against the oracles, one cop and several, on random maps (and
/// graphs for several cops); the bitboard engine's several-cops kernel
/// against the oracle and the counter engines; `Game` contract properties.
mod agree;
/// The batch subcommand over directories of maps: rows, errors, resume.
mod batch;
/// `batch --cops K` and `batch --copnumber` against `solve --cops K` and
/// `copnumber MAP` map by map; `--resume`.
mod batch_cops;
/// `batch --plan`: exit status and JSON Lines with bad maps.
mod batch_plan;
/// `bench`'s exports: standard output, refused engines.
mod bench;
/// The page of `serve` in headless Chromium, one cop and several (ignored
/// unless asked for with `--ignored`; skipped without Chromium).
mod browser;
/// A minimal Chrome DevTools protocol client for `browser`.
mod cdp;
/// The census checked (issue 48): `census --check` by corner elimination,
/// the certificates of the largest cop numbers in data/census.
mod census_check;
/// `copnumber --certificate` against the independent checker
/// `scripts/check-certificate.py`: every graph up to 8 vertices, named
/// graphs, damaged certificates refused.
mod certificate;
/// `solve --checkpoint` / `--resume` for one cop and for several: killed,
/// stopped, refused; several cops out of core (`--scratch`).
mod checkpoint;
/// The command-line tool, run as a process on data/ maps and bad input.
mod cli;
/// Issue 16: rim exits, warnings, --xy, --scen, counts, summary, completions.
mod conventions;
/// `copnumber`: small graphs against independent checks, named graphs.
mod copnumber;
/// `copnumber census` and `merge` (issue 32) without nauty: against
/// `copnumber` summed, merged runs, killed runs, refusals.
mod copnumber_census;
/// Issue 47's census faults: another census of files, two runs into one
/// DIR, forged and special shard files, a stop while the generator floods;
/// `copnumber MAP --lazy --json`.
mod copnumber_census_faults;
/// `copnumber MAP` under rule and exit flags against `solve --cops K`.
mod copnumber_map;
/// copnumber plans each number of cops under --memory (issue 33).
mod copnumber_memory;
/// `copnumber --cop-speed / --thief-speed` against `solve --cops K`.
mod copnumber_speed;
/// Partitioned solves over loopback TCP (feature `distributed`).
#[cfg(feature = "distributed")]
mod distributed;
/// Several cops partitioned on the bit engine (feature `distributed`).
#[cfg(feature = "distributed")]
mod distributed_kbits;
/// Partitioned several-cops solves over loopback TCP (feature
/// `distributed`).
#[cfg(feature = "distributed")]
mod distributed_kcops;
/// One cop and several cops partitioned on the bit engine out of core
/// (feature `distributed`).
#[cfg(feature = "distributed")]
mod distributed_scratch;
/// Issue 23 faults: FIFO and directory tables, output collisions, pipes.
mod faults;
/// Forged tables with valid checksums against the reader.
mod forged;
/// Map parser and placement errors: line, column and message.
mod formats;
/// Issue 23's friction points: one colour scheme, legends, exits and
/// titles of pictures, `play --moves`, passes, man page sections.
mod friction;
/// data/expected.csv against the engines; `regenerate_golden` rewrites it.
mod golden;
/// Edge-list games and the explicit CSR engine: reference, parser, CLI.
mod graph;
/// `graph`'s report: the dump on standard output, the engine named, the
/// memory advice.
mod graph_cli;
/// Hostile inputs and situations: output targets, signals, endless input,
/// closed pipes, resource flags, exit codes; parsers fuzzed.
mod harden;
/// Issue 33's hostile inputs and faults: sparse and forged tables, slow
/// clients, results files, memory caps, outputs that are inputs.
mod hostile;
/// A minimal HTTP/1.1 client for `serve` and `browser`.
mod http;
/// Several cops end to end: named graphs, `solve --cops`, `--graph`, dumps.
mod kcops_cli;
/// The k-cop engine in scratch files and resumed, against memory.
mod kcops_scratch;
/// `render` on several-cops tables: pictures against `query` and the library.
mod krender;
/// The source tree's shape: file lengths, no import cycles.
mod layout;
/// Resource limits (issue 47): `ulimit -f` on saves and scratch files,
/// `ulimit -v` on a two-cop solve.
mod limits;
/// What a new user trips on: --xy refusals, empty graphs, files of
/// another kind, help (issue 33).
mod newuser;
/// What a new user trips on, round 5 (issue 47): the start echoed,
/// `--processes` without the feature, `cluster-local.sh` from any folder,
/// `batch --plan --scen`, the census's `sha256sum`.
mod newuser5;
/// The brute-force reference solvers written from docs/rules.md, of one
/// cop and of several (one fixpoint).
mod oracle;
/// The several-cops summary of `solve --cops K` against the oracle's
/// count over every placement.
mod placements;
/// Engine and memory policy: what an engine keeps, one route for --memory.
mod policy;
/// Every README example, run and compared with what README shows.
mod readme;
/// `batch --scen` and `query --scen`: rows and answers per scenario pair.
mod scen;
/// `serve`'s API against `query`, malformed requests, command-line errors;
/// on several-cops tables, answers against `query` and bad parameters.
mod serve;
/// The observer's stop: every engine ends at the level it says, the bit
/// engine's snapshot of it resumes; an observer that goes on changes nothing.
mod stop;
/// What the test modules share: the binary, temp dirs, random maps, tables, converters.
mod support;
/// Saved tables: probes, rated moves, optimal play, damaged files; tables
/// of several cops saved, queried state by state, played, refused.
mod tablebase;
/// The game-theory toolkit: subtraction, nim, grundy, empty-cell.
mod toolkit;
/// `verify` rejects the solutions of other games.
mod verify;
