//! The `retrograde` command-line tool: a thin shell over the library.

mod cli;

fn main() {
    std::process::exit(cli::main());
}
