//! Integration tests in one binary (one link step): conformance corpus, our own `.dos`
//! assert files, examples, fuzzing, the REPL through a terminal.

mod cli;
mod conformance;
mod docs;
mod dos_files;
mod fuzz;
mod fuzz_builtins;
mod interrupt;
mod lang_gaps;
mod matrix_forms;
mod paths;
mod policy;
mod realworld;
mod registry;
mod repl_tty;
mod robust;
mod sql_duckdb;
mod storage;
