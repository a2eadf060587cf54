//! Console printing (LANGUAGE.md §3).
