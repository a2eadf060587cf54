//! Builtins: file I/O (file, close, readLine, readLines, writeLine, writeLines, exists,
//! mkdir, rmdir, rm, saveTextFile); `files` and `saveText` live with the CSV code in
//! storage's text.rs.

use beluga_runtime::CallCtx;
use crate::util::{col, describe, opt};
use beluga_runtime::column::Column;
use beluga_runtime::registry::{fp, Builtin, Kind};
use beluga_runtime::value::Handle;
use beluga_runtime::{DataType, Error, ErrorKind, Result, Value};
use std::any::Any;
use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::sync::{Arc, Mutex};

fn io_err(what: &str, path: &str, e: std::io::Error) -> Error {
    Error::new(ErrorKind::Io, format!("Failed to {what} {path}: {e}"))
}

enum FileState {
    Read(BufReader<File>),
    Write(BufWriter<File>),
    Closed,
}

/// An open file (`file(path, mode)`).
pub struct FileHandle {
    path: String,
    state: Mutex<FileState>,
}

impl fmt::Debug for FileHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FileHandle({})", self.path)
    }
}

impl Handle for FileHandle {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn display(&self) -> String {
        format!("File[{}]", self.path)
    }
}

fn handle_arg<'a>(name: &str, v: &'a Value) -> Result<&'a FileHandle> {
    match v {
        Value::Handle(h) => h.as_any().downcast_ref::<FileHandle>().ok_or_else(|| Error::arg(format!("The handle given to [{name}] is not a file"))),
        other => Err(Error::arg(format!("[{name}] expects a file handle, not {}", describe(other)))),
    }
}

fn str_arg(name: &str, v: &Value, what: &str) -> Result<String> {
    v.as_str().map(|s| s.to_string()).ok_or_else(|| Error::arg(format!("The {what} argument of [{name}] must be a string")))
}

fn file(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let path = str_arg("file", &args[0], "filename")?;
    let mode = opt(&args, 1).and_then(|v| v.as_str()).unwrap_or("r").to_string();
    let state = match mode.as_str() {
        "r" | "r+" => FileState::Read(BufReader::new(File::open(&path).map_err(|e| io_err("open", &path, e))?)),
        "w" | "w+" => FileState::Write(BufWriter::new(File::create(&path).map_err(|e| io_err("create", &path, e))?)),
        "a" | "a+" => FileState::Write(BufWriter::new(
            OpenOptions::new().create(true).append(true).open(&path).map_err(|e| io_err("open", &path, e))?,
        )),
        other => return Err(Error::arg(format!("The mode of [file] must be r, w or a, not {other}"))),
    };
    Ok(Value::Handle(Arc::new(FileHandle { path, state: Mutex::new(state) })))
}

fn close(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let h = handle_arg("close", &args[0])?;
    let mut st = h.state.lock().map_err(|_| Error::runtime("file lock poisoned"))?;
    if let FileState::Write(w) = &mut *st {
        w.flush().map_err(|e| io_err("flush", &h.path, e))?;
    }
    *st = FileState::Closed;
    Ok(Value::Void)
}

fn read_lines_n(h: &FileHandle, n: usize) -> Result<Vec<String>> {
    let mut st = h.state.lock().map_err(|_| Error::runtime("file lock poisoned"))?;
    let r = match &mut *st {
        FileState::Read(r) => r,
        _ => return Err(Error::arg(format!("The file {} is not open for reading", h.path))),
    };
    let mut out = Vec::new();
    let mut line = String::new();
    while out.len() < n {
        line.clear();
        let k = r.read_line(&mut line).map_err(|e| io_err("read", &h.path, e))?;
        if k == 0 {
            break;
        }
        let l = line.trim_end_matches('\n').trim_end_matches('\r');
        out.push(l.to_string());
    }
    Ok(out)
}

fn read_line(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let h = handle_arg("readLine", &args[0])?;
    Ok(match read_lines_n(h, 1)?.pop() {
        Some(l) => Value::string(&l),
        None => Value::Void,
    })
}

fn read_lines(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let n = match opt(&args, 1) {
        Some(v) => v.as_i64().filter(|k| *k > 0).ok_or_else(|| Error::arg("The length argument of [readLines] must be positive"))? as usize,
        None => 1024,
    };
    let lines = match &args[0] {
        Value::Handle(_) => read_lines_n(handle_arg("readLines", &args[0])?, n)?,
        v => {
            // a file name: read the whole file
            let path = str_arg("readLines", v, "file")?;
            std::fs::read_to_string(&path)
                .map_err(|e| io_err("read", &path, e))?
                .lines()
                .map(|s| s.to_string())
                .collect()
        }
    };
    Ok(Value::string_vec(lines.iter().map(|s| s.as_str())))
}

fn write_strings(h: &FileHandle, lines: &[String]) -> Result<()> {
    let mut st = h.state.lock().map_err(|_| Error::runtime("file lock poisoned"))?;
    let w = match &mut *st {
        FileState::Write(w) => w,
        _ => return Err(Error::arg(format!("The file {} is not open for writing", h.path))),
    };
    for l in lines {
        w.write_all(l.as_bytes()).and_then(|_| w.write_all(b"\n")).map_err(|e| io_err("write", &h.path, e))?;
    }
    w.flush().map_err(|e| io_err("flush", &h.path, e))
}

fn texts(name: &str, v: &Value) -> Result<Vec<String>> {
    let c = col(name, v)?;
    Ok((0..c.len()).map(|k| beluga_runtime::fmt::format_elem(&c, k)).collect())
}

fn write_line(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let h = handle_arg("writeLine", &args[0])?;
    let lines = texts("writeLine", &args[1])?;
    write_strings(h, &lines)?;
    Ok(Value::int(lines.len() as i32))
}

fn write_lines(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let h = handle_arg("writeLines", &args[0])?;
    let lines = texts("writeLines", &args[1])?;
    write_strings(h, &lines)?;
    Ok(Value::int(lines.len() as i32))
}

// ------------------------------------------------------------------ directories

fn exists(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let c = col("exists", &args[0])?;
    let out: Vec<i8> = (0..c.len()).map(|k| std::path::Path::new(c.str_at(k).unwrap_or("")).exists() as i8).collect();
    let r = Column::from_vec(DataType::Bool, out);
    Ok(if args[0].is_scalar() { Value::Scalar(r) } else { Value::Vector(r) })
}

fn mkdir(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let path = str_arg("mkdir", &args[0], "directory")?;
    std::fs::create_dir_all(&path).map_err(|e| io_err("create the directory", &path, e))?;
    Ok(Value::Void)
}

fn rmdir(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let path = str_arg("rmdir", &args[0], "directory")?;
    let recursive = opt(&args, 1).and_then(|v| v.as_bool()).unwrap_or(false);
    let r = if recursive { std::fs::remove_dir_all(&path) } else { std::fs::remove_dir(&path) };
    r.map_err(|e| io_err("remove the directory", &path, e))?;
    Ok(Value::Void)
}

fn rm(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let path = str_arg("rm", &args[0], "filename")?;
    std::fs::remove_file(&path).map_err(|e| io_err("remove", &path, e))?;
    Ok(Value::Void)
}

fn save_text_file(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let content = str_arg("saveTextFile", &args[0], "content")?;
    let path = str_arg("saveTextFile", &args[1], "filename")?;
    let append = opt(&args, 2).and_then(|v| v.as_bool()).unwrap_or(false);
    let mut f = if append {
        OpenOptions::new().create(true).append(true).open(&path)
    } else {
        File::create(&path)
    }
    .map_err(|e| io_err("open", &path, e))?;
    f.write_all(content.as_bytes()).map_err(|e| io_err("write", &path, e))?;
    Ok(Value::Void)
}

pub const DEFS: &[Builtin] = &[
    fp("close", Kind::System, 1, 1, close, &["fileHandle"]),
    fp("exists", Kind::System, 1, 1, exists, &["path"]),
    fp("file", Kind::System, 1, 2, file, &["filename", "mode"]),
    fp("mkdir", Kind::System, 1, 1, mkdir, &["directory"]),
    fp("readLine", Kind::System, 1, 1, read_line, &["handle"]),
    fp("readLines", Kind::System, 1, 2, read_lines, &["handle", "length"]),
    fp("rm", Kind::System, 1, 1, rm, &["filename"]),
    fp("rmdir", Kind::System, 1, 2, rmdir, &["directory", "recursive"]),
    fp("saveTextFile", Kind::System, 2, 4, save_text_file, &["content", "filename", "append", "lastModified"]),
    fp("writeLine", Kind::System, 2, 2, write_line, &["handle", "object"]),
    fp("writeLines", Kind::System, 2, 3, write_lines, &["handle", "object", "offset"]),
];
