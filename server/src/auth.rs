//! Users of the server: the `--users FILE` list (sha256 password hashes, optionally
//! salted) and the built-in `admin`/`123456` account, which exists only while the server
//! listens on a loopback address (a default password must never face a network).

use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::Path;

/// One stored credential: hex sha256 of `salt + password`.
#[derive(Clone, Debug)]
struct Cred {
    salt: String,
    hash: String,
}

#[derive(Clone, Debug, Default)]
pub struct Users {
    users: HashMap<String, Cred>,
}

pub fn sha256_hex(text: &str) -> String {
    let d = Sha256::digest(text.as_bytes());
    d.iter().map(|b| format!("{b:02x}")).collect()
}

impl Users {
    /// Read a users file: one `name:sha256hex` or `name:salt:sha256hex(salt+password)` per
    /// line; blank lines and `#` comments are skipped.
    pub fn load(path: &Path) -> Result<Users, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("can't read users file {}: {e}", path.display()))?;
        Users::parse(&text).map_err(|e| format!("users file {}: {e}", path.display()))
    }

    pub fn parse(text: &str) -> Result<Users, String> {
        let mut users = HashMap::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let parts: Vec<&str> = line.split(':').collect();
            let (name, salt, hash) = match parts.as_slice() {
                [name, hash] => (*name, "", *hash),
                [name, salt, hash] => (*name, *salt, *hash),
                _ => return Err(format!("line {}: expected name:sha256 or name:salt:sha256", n + 1)),
            };
            let hash = hash.to_ascii_lowercase();
            if name.is_empty() || hash.len() != 64 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(format!("line {}: a user name and a 64-digit hex sha256 are required", n + 1));
            }
            users.insert(name.to_string(), Cred { salt: salt.to_string(), hash });
        }
        Ok(Users { users })
    }

    /// Add the built-in administrator (loopback servers only; a listed `admin` wins).
    pub fn with_builtin_admin(mut self) -> Users {
        self.users.entry("admin".into()).or_insert(Cred { salt: String::new(), hash: sha256_hex("123456") });
        self
    }

    pub fn check(&self, user: &str, password: &str) -> bool {
        match self.users.get(user) {
            Some(c) => {
                let h = sha256_hex(&format!("{}{}", c.salt, password));
                // compare without an early exit
                h.len() == c.hash.len() && h.bytes().zip(c.hash.bytes()).fold(0u8, |a, (x, y)| a | (x ^ y)) == 0
            }
            None => false,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.users.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn users_file_with_and_without_salt() {
        let text = format!("# users\nalice:{}\nbob:pepper:{}\n", sha256_hex("pw1"), sha256_hex("pepperpw2"));
        let u = Users::parse(&text).unwrap();
        assert!(u.check("alice", "pw1"));
        assert!(!u.check("alice", "pw2"));
        assert!(u.check("bob", "pw2"));
        assert!(!u.check("admin", "123456"));
        assert!(u.with_builtin_admin().check("admin", "123456"));
        assert!(Users::parse("x:short").is_err());
        // known vector: sha256("abc")
        assert_eq!(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}
