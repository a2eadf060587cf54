//! Every builtin except storage's, one module per family; `register` adds them all.

pub mod agg;
pub mod containers;
pub mod convert;
pub mod core;
pub mod cum;
pub mod docs;
pub mod encoding;
pub mod finance;
pub mod hof;
pub mod join;
pub mod linalg;
pub mod math;
pub mod meta;
pub mod order;
pub mod plot;
pub mod random;
pub mod reshape;
pub mod row;
pub mod stats;
pub mod stream;
pub mod string;
pub mod system;
pub mod table;
pub mod temporal;
pub mod testing;
pub mod util;
pub mod window;

// Families live in folders (window/, agg/, stats/, temporal/, string/, containers/,
// convert/, math/, row/, reshape/, linalg/, order/, hof/, system/, cum/, finance/, join/);
// the flat paths of their files stay valid as aliases.
pub use cum::misc as cum_misc;
pub use finance::series;
pub use finance::ta;
pub use hof::time as hof_time;
pub use linalg::decomp as linalg_decomp;
pub use order::search as order_search;
pub use reshape::bar as reshape_bar;
pub use reshape::stats as reshape_stats;
pub use system::io as system_io;
pub use window::tm;
pub use window::topn;
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
    cum::register(r);
    window::register(r);
    string::register(r);
    convert::register(r);
    r.extend(encoding::DEFS);
    temporal::register(r);
    containers::register(r);
    order::register(r);
    stats::register(r);
    linalg::register(r);
    r.extend(random::DEFS);
    r.extend(table::DEFS);
    reshape::register(r);
    hof::register(r);
    r.extend(meta::DEFS);
    system::register(r);
    r.extend(join::DEFS);
    finance::register(r);
    r.extend(docs::DEFS);
    r.extend(plot::DEFS);
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
