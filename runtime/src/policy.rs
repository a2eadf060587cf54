//! What a session may do beyond computing: read, write or delete files, run script files,
//! read the environment. Every builtin row carries a capability (`Cap`, pure by default;
//! the file, script and environment builtins are marked where they are registered) and the
//! positions of its path arguments; a session carries a `Policy`. The dispatcher asks the
//! policy before any capable builtin runs (`Policy::admit`), so the rule lives in one place
//! instead of in each builtin.
//!
//! The REPL and `beluga FILE` are trusted: they may do everything the user could do. An
//! embedded or server session is confined to a data folder: relative paths are taken
//! inside it, other paths must lie inside it (symlinks resolved), deleting files (`rm`,
//! `rmdir`) and reading the environment are refused, and `dfs://` databases stay under the
//! dfs root (see `storage::catalog`). Database deletions (`dropDatabase`, `dropTable`) are
//! confined by the storage layer itself, which only ever removes what a database wrote.

use crate::error::{Error, ErrorKind, Result};
use crate::value::Value;
use std::path::{Component, Path, PathBuf};

/// Capabilities a builtin needs, as bit flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Cap(pub u8);

impl Cap {
    pub const PURE: Cap = Cap(0);
    pub const READ: Cap = Cap(1);
    pub const WRITE: Cap = Cap(2);
    pub const DELETE: Cap = Cap(4);
    pub const RUN: Cap = Cap(8);
    pub const ENV: Cap = Cap(16);

    pub const fn with(self, o: Cap) -> Cap {
        Cap(self.0 | o.0)
    }
    pub const fn has(self, o: Cap) -> bool {
        self.0 & o.0 != 0
    }
    pub const fn is_pure(self) -> bool {
        self.0 == 0
    }
    /// Words for error messages and `help`.
    pub fn describe(self) -> String {
        let names = [(Cap::READ, "reads files"), (Cap::WRITE, "writes files"), (Cap::DELETE, "deletes files"), (Cap::RUN, "runs script files"), (Cap::ENV, "reads the environment")];
        let v: Vec<&str> = names.iter().filter(|(c, _)| self.has(*c)).map(|(_, n)| *n).collect();
        if v.is_empty() { "is pure".into() } else { v.join(", ") }
    }
}

/// What a session may do.
#[derive(Clone, Debug, Default)]
pub enum Policy {
    /// everything the user running the process may do (the REPL, `beluga FILE`)
    #[default]
    Trusted,
    /// file access only inside `root`; no deletion of files, no environment
    Confined { root: PathBuf },
    /// nothing beyond computing (a server connection that has not logged in)
    Sealed,
}

impl Policy {
    pub fn confined(root: impl Into<PathBuf>) -> Policy {
        Policy::Confined { root: root.into() }
    }

    /// Check a call of builtin `name` needing `cap`, whose arguments at the positions in
    /// the bit mask `paths` name files or folders; in a confined session those path
    /// arguments are replaced by the resolved path inside the data folder.
    pub fn admit(&self, name: &str, cap: Cap, paths: u8, args: &mut [Value]) -> Result<()> {
        let root = match self {
            Policy::Trusted => return Ok(()),
            Policy::Sealed => return Err(denied_err(format!("[{name}] {}; log in first", cap.describe()))),
            Policy::Confined { root } => root,
        };
        for denied in [Cap::DELETE, Cap::ENV] {
            if cap.has(denied) {
                return Err(denied_err(format!("[{name}] {}, which this session does not allow", denied.describe())));
            }
        }
        for (k, a) in args.iter_mut().enumerate().filter(|(k, _)| *k < 8 && paths & (1 << k) != 0) {
            let Some(p) = a.as_str() else { continue };
            if p.is_empty() || p.starts_with("dfs://") {
                continue;
            }
            let full = resolve_in(root, p).map_err(|_| denied_err(format!("[{name}]: the path '{p}' lies outside this session's data folder")))?;
            let _ = k;
            *a = Value::string(&full.to_string_lossy());
        }
        Ok(())
    }

    /// A script file to `run` or `#include` (relative to `base`, the including file's folder).
    pub fn script_path(&self, base: Option<&Path>, path: &str) -> Result<PathBuf> {
        let joined = match base {
            Some(b) if Path::new(path).is_relative() => b.join(path),
            _ => PathBuf::from(path),
        };
        match self {
            Policy::Trusted => Ok(joined),
            Policy::Sealed => Err(denied_err(format!("running the script '{path}' needs a login"))),
            Policy::Confined { root } => {
                let p = joined.to_string_lossy().into_owned();
                resolve_in(root, &p).map_err(|_| denied_err(format!("the script '{path}' lies outside this session's data folder")))
            }
        }
    }
}

fn denied_err(msg: String) -> Error {
    Error::new(ErrorKind::Runtime, format!("Permission denied: {msg}"))
}

/// `p` taken inside `root`: a relative path is joined to it, an absolute one must already
/// lie inside it; either way the result is confined (`confine`).
pub fn resolve_in(root: &Path, p: &str) -> Result<PathBuf> {
    let path = Path::new(p);
    let full = if path.is_absolute() { path.to_path_buf() } else { root.join(path) };
    confine(root, &full)?;
    Ok(full)
}

/// Error unless `path` lies inside `root`: lexically (`root` followed by plain names, no
/// `..` or `.`), and once symlinks are resolved (the deepest part of `path` that exists,
/// canonicalized, lies inside the canonicalized root). A root that does not exist yet has
/// nothing below it to resolve.
pub fn confine(root: &Path, path: &Path) -> Result<()> {
    let outside = || Error::new(ErrorKind::Io, format!("The path {} lies outside {}; refusing to touch it", path.display(), root.display()));
    let plain = path.strip_prefix(root).is_ok_and(|rest| rest.components().all(|c| matches!(c, Component::Normal(_))));
    if !plain {
        return Err(outside());
    }
    let Ok(canon_root) = root.canonicalize() else { return Ok(()) };
    let mut probe = path;
    loop {
        if let Ok(c) = probe.canonicalize() {
            return if c.starts_with(&canon_root) { Ok(()) } else { Err(outside()) };
        }
        match probe.parent() {
            Some(p) if p.starts_with(root) => probe = p,
            _ => return Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confined_paths_stay_inside_the_root() {
        let root = std::env::temp_dir().join(format!("beluga-policy-{}", std::process::id()));
        std::fs::create_dir_all(root.join("data")).unwrap();
        assert_eq!(resolve_in(&root, "data/x.csv").unwrap(), root.join("data/x.csv"));
        assert!(resolve_in(&root, "../x.csv").is_err());
        assert!(resolve_in(&root, "data/../../x.csv").is_err());
        assert!(resolve_in(&root, "/etc/passwd").is_err());
        assert!(resolve_in(&root, &root.join("data/y").to_string_lossy()).is_ok());
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/etc", root.join("etc")).unwrap();
            assert!(resolve_in(&root, "etc/passwd").is_err());
        }
        let p = Policy::confined(&root);
        let mut args = vec![Value::string("data/x.csv")];
        p.admit("loadText", Cap::READ, 1, &mut args).unwrap();
        assert_eq!(args[0].as_str(), Some(root.join("data/x.csv").to_string_lossy().as_ref()));
        let e = p.admit("rm", Cap::DELETE, 1, &mut [Value::string("data/x.csv")]).unwrap_err();
        assert!(e.message.contains("Permission denied") && e.message.contains("deletes files"), "{}", e.message);
        assert!(p.admit("getEnv", Cap::ENV, 0, &mut [Value::string("HOME")]).is_err());
        assert!(Policy::Trusted.admit("rm", Cap::DELETE, 1, &mut [Value::string("/x")]).is_ok());
        assert!(Policy::Sealed.admit("loadText", Cap::READ, 1, &mut [Value::string("x.csv")]).is_err());
        let _ = std::fs::remove_dir_all(&root);
    }
}
