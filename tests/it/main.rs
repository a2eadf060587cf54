//! Integration tests in one binary (one link step): conformance corpus, our own `.dos`
//! assert files, examples, fuzzing, the REPL through a terminal.

mod cli;
mod conformance;
mod docs;
mod dos_files;
mod fuzz;
mod realworld;
mod repl_tty;
mod sql_duckdb;
mod storage;
