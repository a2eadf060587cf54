//! Builtins: the cluster calls of single-node scripts (getNodeAlias, getControllerAlias,
//! getLiveDataNodes, rpc, pnodeRun, flushOLAPCache, flushTSDBCache).
//!
//! Beluga is one process, the one data node of its own "cluster". Tutorials written for a
//! cluster still run: `rpc(getControllerAlias(), getLiveDataNodes)` answers with this node,
//! `rpc(node, f, args...)` calls `f` here when `node` names this node (any other alias is
//! an error naming it), and `pnodeRun(flushOLAPCache)` calls `f` once, on this node.
//! Appends to stored tables commit when they return (there is no write cache to flush),
//! so the two flush calls have nothing to do and return nothing.

use crate::util::{col, describe, opt};
use beluga_runtime::registry::{f, fp, Builtin, Kind};
use beluga_runtime::{CallCtx, Error, Result, Table, Value};

/// The alias of the node a script runs on (DolphinDB's single-node default name).
pub const NODE_ALIAS: &str = "local8848";

fn get_node_alias(_i: &mut CallCtx, _args: Vec<Value>) -> Result<Value> {
    Ok(Value::string(NODE_ALIAS))
}

fn get_live_data_nodes(_i: &mut CallCtx, _args: Vec<Value>) -> Result<Value> {
    Ok(Value::Vector(col("getLiveDataNodes", &Value::string(NODE_ALIAS))?))
}

/// Checks that a node list names only this node.
fn check_nodes(name: &str, v: &Value) -> Result<()> {
    let c = col(name, v)?;
    if !c.ty.is_literal() {
        return Err(Error::arg(format!("The node argument of [{name}] must be a node alias string, not {}", describe(v))));
    }
    for k in 0..c.len() {
        let a = c.str_at(k).unwrap_or("");
        if a != NODE_ALIAS && !a.is_empty() {
            return Err(Error::arg(format!("[{name}] can't reach node '{a}': the only node is '{NODE_ALIAS}'")));
        }
    }
    Ok(())
}

/// `rpc(nodeAlias, func, args...)`: func(args...) on the named node, which is this one.
fn rpc(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    check_nodes("rpc", &args[0])?;
    let f = args[1].clone();
    if !matches!(f, Value::Function(_)) {
        return Err(Error::arg(format!("The func argument of [rpc] must be a function, not {}", describe(&f))));
    }
    i.call_value(&f, args[2..].to_vec())
}

/// `pnodeRun(func, [nodes], [addNodeToResult=true])`: func() on every node (this one). A
/// table result gains a `Node` column (`addNodeToResult`); other results are returned as
/// they are.
fn pnode_run(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let f = args[0].clone();
    if !matches!(f, Value::Function(_)) {
        return Err(Error::arg(format!("The func argument of [pnodeRun] must be a function, not {}", describe(&f))));
    }
    if let Some(n) = opt(&args, 1) {
        check_nodes("pnodeRun", n)?;
    }
    let add_node = opt(&args, 2).and_then(|v| v.as_bool()).unwrap_or(true);
    let r = i.call_value(&f, vec![])?;
    match r {
        Value::Table(t) if add_node => {
            let n = t.rows();
            let node = col("pnodeRun", &Value::string(NODE_ALIAS))?.take_usize(&vec![0; n]);
            let mut names = vec!["Node".to_string()];
            let mut cols = vec![node];
            for (k, name) in t.names.iter().enumerate() {
                names.push(name.clone());
                cols.push(t.cols[k].clone());
            }
            Ok(Value::table(Table::new(names, cols)?))
        }
        other => Ok(other),
    }
}

fn flush_cache(_i: &mut CallCtx, _args: Vec<Value>) -> Result<Value> {
    Ok(Value::Void)
}

pub const DEFS: &[Builtin] = &[
    f("getNodeAlias", Kind::System, 0, 0, get_node_alias),
    f("getControllerAlias", Kind::System, 0, 0, get_node_alias),
    fp("getLiveDataNodes", Kind::System, 0, 1, get_live_data_nodes, &["includeComputeNodes"]),
    f("rpc", Kind::System, 2, u8::MAX, rpc),
    fp("pnodeRun", Kind::System, 1, 3, pnode_run, &["func", "nodes", "addNodeToResult"]),
    f("flushOLAPCache", Kind::System, 0, 0, flush_cache),
    f("flushTSDBCache", Kind::System, 0, 0, flush_cache),
];
