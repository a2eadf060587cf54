//! Every builtin except storage's, one module per family; `register` adds them all.

pub mod agg;
pub mod linalg;
pub mod linalg_decomp;
pub mod containers;
pub mod convert;
pub mod docs;
pub mod plot;
pub mod core;
pub mod encoding;
pub mod cum;
pub mod join;
pub mod math;
pub mod order;
pub mod order_search;
pub mod random;
pub mod reshape;
pub mod reshape_bar;
pub mod reshape_stats;
pub mod hof;
pub mod hof_time;
pub mod meta;
pub mod system;
pub mod system_io;
pub mod stats;
pub mod stream;
pub mod string;
pub mod table;
pub mod temporal;
pub mod testing;
pub mod util;
pub mod tm;
pub mod window;
pub mod cum_misc;
pub mod finance;
pub mod row;
pub mod series;
pub mod ta;
pub mod topn;

// Families live in folders (window/, agg/, stats/, temporal/, string/, containers/,
// convert/, math/, row/); the flat paths of their files stay valid as aliases.
pub use window::fast as window_fast;
pub use window::fns as window_fns;
pub use window::kernels as window_kernels;
pub use window::misc as window_misc;
pub use window::order as window_order;
pub use window::stats as window_stats;
pub use window::time as window_time;
#[cfg(test)]
use window::tests as window_tests;
pub use agg::group as agg_group;
pub use agg::order as agg_order;
pub use agg::stats as agg_stats;
#[cfg(test)]
use agg::tests as agg_tests;
pub use stats::desc as stats_desc;
pub use stats::dist as stats_dist;
pub use stats::ewm as stats_ewm;
pub use stats::ml as stats_ml;
pub use stats::model as stats_model;
pub use temporal::arith as temporal_arith;
pub use temporal::cal as temporal_cal;
pub use temporal::base as temporal_core;
pub use temporal::period as temporal_period;
pub use temporal::tz as temporal_tz;
pub use string::base as string_core;
pub use string::format as string_format;
pub use string::regex as string_regex;
pub use string::regex_fns as string_regex_fns;
pub use string::text as string_text;
pub use containers::access as containers_access;
pub use containers::fill as containers_fill;
pub use containers::misc as containers_misc;
pub use containers::shift as containers_shift;
pub use containers::tests as containers_tests;
pub use convert::build as convert_build;
pub use convert::json as convert_json;
pub use convert::json_write as convert_json_write;
pub use math::calc as math_calc;
pub use math::ops as math_ops;
pub use math::util as math_util;
pub use row::md5 as row_md5;
pub use row::misc as row_misc;
pub use row::pair as row_pair;

use beluga_runtime::Registry;

/// Register every stdlib builtin (and the interpreter's higher-order functions).
pub fn register(r: &mut Registry) {
    r.extend(beluga_runtime::eval::ADVERB_DEFS);
    // families in folders gather their own rows (each folder's mod.rs `register`)
    r.extend(core::DEFS);
    r.extend(stream::DEFS);
    math::register(r);
    agg::register(r);
    r.extend(cum::DEFS);
    window::register(r);
    r.extend(tm::DEFS);
    string::register(r);
    convert::register(r);
    r.extend(encoding::DEFS);
    temporal::register(r);
    containers::register(r);
    r.extend(order::DEFS);
    r.extend(order_search::DEFS);
    stats::register(r);
    // flat files
    for defs in [
        linalg::DEFS,
        linalg_decomp::DEFS,
        random::DEFS,
        table::DEFS,
        reshape::DEFS,
        reshape_bar::DEFS,
        reshape_stats::DEFS,
        hof::DEFS,
        hof_time::DEFS,
        meta::DEFS,
        system::DEFS,
        system_io::DEFS,
        join::DEFS,
        topn::DEFS,
        ta::DEFS,
        finance::DEFS,
        series::DEFS,
        docs::DEFS,
        plot::DEFS,
    ] {
        r.extend(defs);
    }
    row::register(r);
    r.set_caps(CAPS);
    stream::wrap(r);
    // the rows expose their one-line doc and example (docs.tsv, joined by name), also
    // the rows other crates register after these (storage, server)
    r.set_doc_source(|name| docs::find(name).map(|d| (d.doc, d.example)));
}

use beluga_runtime::registry::Cap;

/// The stdlib builtins that do more than compute (see `beluga_runtime::policy`): name,
/// capability, positions of path arguments. Builtins working on an open file handle need
/// nothing more: the handle was admitted when `file` opened it.
const CAPS: &[(&str, Cap, &[u8])] = &[
    ("exists", Cap::READ, &[0]),
    ("file", Cap::READ.with(Cap::WRITE), &[0]),
    ("mkdir", Cap::WRITE, &[0]),
    ("rm", Cap::DELETE, &[0]),
    ("rmdir", Cap::DELETE, &[0]),
    ("saveTextFile", Cap::WRITE, &[1]),
    ("run", Cap::RUN.with(Cap::READ), &[]),
    ("getEnv", Cap::ENV, &[]),
    ("getHomeDir", Cap::ENV, &[]),
];
