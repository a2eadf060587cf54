//! Text import and export: loadText, ploadText, loadTextEx (streaming, parallel chunks,
//! one transaction), saveText, extractTextSchema, and `files`.

use beluga_runtime::CallCtx;
use crate::builtins_db::{names_of, str_of};
use crate::csv::infer::{clean_name, first_record, infer_types, looks_like_header, SAMPLE_RECORDS};
use crate::csv::lexer::{blank_line, boundaries, boundaries_quoted, record, Dialect, Field, Rec};
use crate::csv::parse::{concat, merge, parse_piece_noted, ColSpec};
use crate::handle::{as_db, as_table, table_value};
use crate::store::Appender;
use beluga_runtime::column::{ColData, Column, StrCol};
use beluga_runtime::kernels::parse::TemporalPattern;
use beluga_runtime::null::Native;
use beluga_runtime::{DataType, Error, ErrorKind, Result, Table, Value};
use rayon::prelude::*;
use std::fs::File;
use std::io::{IsTerminal, Read, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Bytes of text parsed per step of a streaming import.
const CHUNK: usize = 32 << 20;
/// Pieces a chunk is cut into per worker thread, each parsed as one task.
const PIECES_PER_THREAD: usize = 2;
/// The pieces of one parsed chunk (columns, line of the first record), and the line of
/// the chunk's first record.
type Parsed = (Vec<(Vec<Column>, usize)>, usize);
/// Bytes read to detect the header and infer types.
const HEAD: usize = 4 << 20;
/// Bytes read first to find the header when a schema gives the types.
const SMALL_HEAD: usize = 64 << 10;
/// Longest record (line) an import accepts: beyond it the file is not line-structured
/// text (or a quote is never closed), and reading on would only exhaust memory.
pub const MAX_RECORD: usize = 64 << 20;

fn opt(args: &[Value], k: usize) -> Option<&Value> {
    args.get(k).filter(|v| !matches!(v, Value::Void))
}

fn io(path: &str, e: std::io::Error) -> Error {
    Error::new(ErrorKind::Io, format!("Can't read the file {path}: {e}"))
}

/// How to read one file: columns to load, where data starts.
pub struct Plan {
    pub path: String,
    pub dialect: Dialect,
    pub specs: Vec<ColSpec>,
    /// byte offset of the first data record
    pub data_start: usize,
    /// lines before the first data record
    pub lines_before: usize,
    /// fields of the first record (the header's), to notice shorter and longer records
    pub width: usize,
    /// fields read leniently or made NULL, and records of another width, found so far
    pub notes: std::sync::Mutex<crate::csv::parse::Notes>,
}

impl Plan {
    /// What the import read leniently (see `csv::parse::Notes`), one line each; printed
    /// after an import so that no conversion goes unnoticed.
    pub fn report(&self) -> Vec<String> {
        let names: Vec<String> = self.specs.iter().map(|s| s.name.clone()).collect();
        let notes = self.notes.lock().unwrap_or_else(|e| e.into_inner());
        notes.report(&self.path, &names, self.lines_before + 1)
    }
}

fn skip_lines(buf: &[u8], mut pos: usize, n: usize) -> usize {
    for _ in 0..n {
        match buf[pos..].iter().position(|&b| b == b'\n') {
            Some(k) => pos += k + 1,
            None => return buf.len(),
        }
    }
    pos
}

/// The first `size` bytes of a file (without a UTF-8 BOM), and whether there may be more.
fn read_head(path: &str, size: usize) -> Result<(Vec<u8>, bool)> {
    let mut f = File::open(path).map_err(|e| io(path, e))?;
    let mut buf = Vec::with_capacity(size);
    (&mut f).take(size as u64).read_to_end(&mut buf).map_err(|e| io(path, e))?;
    let more = buf.len() == size;
    if buf.starts_with(&[0xEF, 0xBB, 0xBF]) {
        buf.drain(..3);
    }
    Ok((buf, more))
}

/// Column names and types given by a schema table (`name`, `type`, optional `col`, `format`).
fn schema_specs(s: &Table, ncols_file: usize) -> Result<Vec<ColSpec>> {
    let col_of = |n: &str| s.column(n);
    let names = col_of("name").ok_or_else(|| Error::arg("The schema table must have a column named name"))?;
    let types = col_of("type").ok_or_else(|| Error::arg("The schema table must have a column named type"))?;
    let cols = col_of("col");
    let fmts = col_of("format");
    let mut out = Vec::with_capacity(s.rows());
    for r in 0..s.rows() {
        let tname = types.str_at(r).map(|x| x.to_string()).or_else(|| types.i64_at(r).and_then(|id| DataType::from_id(id as i32)).map(|t| t.name().to_string()));
        let tname = tname.unwrap_or_default();
        let ty = DataType::from_name(&tname).ok_or_else(|| Error::arg(format!("Invalid data type '{tname}' in the schema")))?;
        if ty.decimal_scale().is_none() && ty.array_elem().is_none() && !matches!(
            ty.physical(),
            beluga_runtime::types::Physical::I8
                | beluga_runtime::types::Physical::I16
                | beluga_runtime::types::Physical::I32
                | beluga_runtime::types::Physical::I64
                | beluga_runtime::types::Physical::F32
                | beluga_runtime::types::Physical::F64
                | beluga_runtime::types::Physical::Sym
                | beluga_runtime::types::Physical::Str
        ) {
            return Err(Error::arg(format!("The data type {ty} is not supported by text import")));
        }
        let field = match cols {
            Some(c) => c.i64_at(r).ok_or_else(|| Error::arg("The col column of the schema must hold integers"))? as usize,
            None => r,
        };
        let fmt = match fmts.and_then(|f| f.str_at(r)).filter(|f| !f.is_empty()) {
            Some(f) if ty.is_temporal() => Some(Arc::new(TemporalPattern::new(f, false)?)),
            _ => None,
        };
        out.push(ColSpec { field, name: names.str_at(r).unwrap_or("").to_string(), ty, fmt });
    }
    if let Some(c) = cols {
        let v: Vec<i64> = (0..c.len()).filter_map(|k| c.i64_at(k)).collect();
        if v.windows(2).any(|w| w[0] >= w[1]) {
            return Err(Error::arg("The col column of the schema must be increasing"));
        }
    }
    if ncols_file > 0 && out.iter().any(|sp| sp.field >= ncols_file) && cols.is_some() {
        return Err(Error::arg(format!("The schema refers to a column beyond the {ncols_file} columns of the file")));
    }
    Ok(out)
}

/// Work out header, names and types of a file.
pub fn plan(path: &str, delim: &str, schema: Option<&Table>, skip_rows: usize, header: Option<bool>) -> Result<Plan> {
    let dialect = Dialect::new(delim);
    // with a schema only the header is needed: read a little first, and more if the
    // skipped lines and the first record don't fit
    let mut size = if schema.is_some() { SMALL_HEAD } else { HEAD };
    let (head, more, pos, first, after) = loop {
        let (head, more) = read_head(path, size)?;
        let mut pos = skip_lines(&head, 0, skip_rows);
        while let Some(q) = blank_line(&head, pos) {
            pos = q;
        }
        let (first, after) = first_record(&head, pos, &dialect).unwrap_or((vec![], head.len()));
        if size < HEAD && more && after >= head.len() {
            size = HEAD;
            continue;
        }
        break (head, more, pos, first, after);
    };
    let ncols = first.len();
    let has_header = header.unwrap_or_else(|| looks_like_header(&first));
    let data_start = if has_header { after } else { pos };
    let lines_before = skip_rows + usize::from(has_header);
    // sample records for inference (and the field count)
    let mut sample: Vec<Vec<Vec<u8>>> = Vec::new();
    if schema.is_none() {
        let mut p = data_start;
        let mut f: Vec<Field> = Vec::new();
        let mut scratch = Vec::new();
        let (complete, _) = if !more { (head.len(), vec![]) } else { boundaries(&head, usize::MAX) };
        while p < complete && sample.len() < SAMPLE_RECORDS {
            if let Some(q) = blank_line(&head, p) {
                p = q;
                continue;
            }
            match record(&head[..complete], p, &dialect, &mut f) {
                Rec::Next(q) => p = q,
                Rec::Unterminated => break,
            }
            sample.push(f.iter().map(|x| crate::csv::lexer::field_bytes(&head, x, &mut scratch).to_vec()).collect());
        }
    }
    let specs = match schema {
        Some(s) => schema_specs(s, ncols)?,
        None => {
            let types = infer_types(&sample, ncols);
            (0..ncols)
                .map(|k| {
                    let name = if has_header {
                        clean_name(&String::from_utf8_lossy(&first[k]))
                    } else {
                        format!("col{k}")
                    };
                    ColSpec { field: k, name, ty: types[k], fmt: None }
                })
                .collect()
        }
    };
    let mut specs = specs;
    // unique names
    let mut seen = ahash::AHashSet::new();
    for s in specs.iter_mut() {
        let mut n = s.name.clone();
        let mut k = 1;
        while !seen.insert(n.to_ascii_lowercase()) {
            n = format!("{}_{k}", s.name);
            k += 1;
        }
        s.name = n;
    }
    Ok(Plan { path: path.to_string(), dialect, specs, data_start, lines_before, width: ncols, notes: Default::default() })
}

/// A progress bar on stderr for imports that take more than a second, drawn only when
/// stderr is a terminal: a thread redraws it from the byte count the parser advances.
struct Progress {
    done: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    ticker: Option<std::thread::JoinHandle<()>>,
}

/// One frame of the progress bar.
fn progress_line(file: &str, done: u64, total: u64, secs: f64) -> String {
    let frac = if total == 0 { 1.0 } else { (done as f64 / total as f64).min(1.0) };
    const WIDTH: usize = 30;
    let filled = ((frac * WIDTH as f64) as usize).min(WIDTH);
    format!("\r{file} [{}{}] {:5.1}% {:.0} MB, {secs:.1}s", "#".repeat(filled), " ".repeat(WIDTH - filled), frac * 100.0, done as f64 / 1e6)
}

impl Progress {
    fn new(total: u64, file: &str) -> Progress {
        let done = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let ticker = std::io::stderr().is_terminal().then(|| {
            let (done, stop, file) = (done.clone(), stop.clone(), file.to_string());
            std::thread::spawn(move || {
                let start = Instant::now();
                let mut shown = false;
                while !stop.load(Ordering::Relaxed) {
                    std::thread::park_timeout(std::time::Duration::from_millis(100));
                    let secs = start.elapsed().as_secs_f64();
                    if secs >= 1.0 {
                        let mut e = std::io::stderr().lock();
                        let _ = e.write_all(progress_line(&file, done.load(Ordering::Relaxed), total, secs).as_bytes());
                        let _ = e.flush();
                        shown = true;
                    }
                }
                if shown {
                    let secs = start.elapsed().as_secs_f64();
                    let _ = writeln!(std::io::stderr(), "{}", progress_line(&file, done.load(Ordering::Relaxed), total, secs));
                }
            })
        });
        Progress { done, stop, ticker }
    }
    fn add(&self, bytes: u64) {
        self.done.fetch_add(bytes, Ordering::Relaxed);
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.ticker.take() {
            t.thread().unpark();
            let _ = t.join();
        }
    }
}

/// The text buffer of the last import, kept for the next one: a fresh buffer costs a page
/// fault per 4 KiB written (as much as parsing a tenth of the text).
/// Two of them: one is parsed while the next chunk is read into the other.
static TEXT_BUF: std::sync::Mutex<Vec<Vec<u8>>> = std::sync::Mutex::new(Vec::new());

/// Read a planned file chunk by chunk; `sink` receives each chunk's table and the line
/// number of its first record. With `merged`, a chunk is one read of `CHUNK` bytes (the
/// pieces parsed in parallel concatenated); without, every piece parsed by one worker is
/// passed on as it is, which saves copying every column once when the receiver splits
/// or concatenates the rows anyway (a partitioned table, a whole file in memory).
pub fn read_chunks(p: &Plan, merged: bool, sink: &mut dyn FnMut(Table, usize) -> Result<()>) -> Result<()> {
    beluga_runtime::bigalloc::keep_freed_memory();
    let mut kept = TEXT_BUF.lock().map(|mut b| std::mem::take(&mut *b)).unwrap_or_default();
    let mut buf = kept.pop().unwrap_or_default();
    let mut spare = kept.pop().unwrap_or_default();
    buf.clear();
    spare.clear();
    let r = read_chunks_into(p, merged, &mut buf, &mut spare, sink);
    if let Ok(mut b) = TEXT_BUF.lock() {
        for mut x in [buf, spare] {
            if x.capacity() <= 2 * CHUNK {
                x.clear();
                b.push(x);
            }
        }
    }
    r
}

fn read_chunks_into(p: &Plan, merged: bool, buf: &mut Vec<u8>, spare: &mut Vec<u8>, sink: &mut dyn FnMut(Table, usize) -> Result<()>) -> Result<()> {
    let mut f = File::open(&p.path).map_err(|e| io(&p.path, e))?;
    let total = f.metadata().map(|m| m.len()).unwrap_or(0);
    let progress = Progress::new(total, &p.path);
    // skip to the data (the head may have had a BOM removed)
    let mut bom = [0u8; 3];
    let n = f.read(&mut bom).map_err(|e| io(&p.path, e))?;
    let offset = if n == 3 && bom == [0xEF, 0xBB, 0xBF] { 3 } else { 0 };
    use std::io::Seek;
    f.seek(std::io::SeekFrom::Start((offset + p.data_start) as u64)).map_err(|e| io(&p.path, e))?;
    // the whole file when it fits in a chunk
    let want_cap = (total as usize).min(CHUNK) + (1 << 20);
    buf.reserve(want_cap.saturating_sub(buf.len()));
    let mut line = p.lines_before + 1;
    progress.add((offset + p.data_start) as u64);
    let threads = rayon::current_num_threads().max(1);
    let names: Vec<String> = p.specs.iter().map(|s| s.name.clone()).collect();
    // no record boundary in the buffer yet: grow it geometrically so a long record is
    // rescanned O(log n) times, not once per megabyte
    let mut grow = false;
    // the bytes read into `buf` while the previous chunk was parsed: (read, asked for)
    let mut ahead: Option<std::io::Result<(usize, usize)>> = None;
    // the last chunk parsed, not yet passed to `sink`: its pieces' columns with the line
    // of each piece's first record, and the line of its first record
    let mut pending: Option<Parsed> = None;
    let deliver = |(chunks, line): Parsed, sink: &mut dyn FnMut(Table, usize) -> Result<()>| -> Result<()> {
        if merged {
            let cols = merge(chunks.into_iter().map(|c| c.0).collect(), &p.specs);
            return sink(Table::new(names.clone(), cols)?, line);
        }
        for (cols, first) in chunks {
            sink(Table::new(names.clone(), cols)?, first)?;
        }
        Ok(())
    };
    loop {
        beluga_runtime::guard::check()?;
        let (got, want) = match ahead.take() {
            Some(r) => r.map_err(|e| io(&p.path, e))?,
            None => {
                let want = if grow { buf.len().max(1 << 20) } else { CHUNK.saturating_sub(buf.len()).max(1 << 20) };
                beluga_runtime::guard::charge((buf.len() + want) as u64)?;
                let got = (&mut f).take(want as u64).read_to_end(buf).map_err(|e| io(&p.path, e))?;
                (got, want)
            }
        };
        let eof = got == 0 || got < want;
        if buf.is_empty() {
            break;
        }
        // pieces per worker: 8 left the other worker less waiting at the end of a chunk but
        // made the devices import (13 columns, 4 SYMBOL) 15-25% slower: more builders and
        // symbol tables per piece, and builders under 1 MB miss the huge-page block cache
        let every = (buf.len() / (threads * PIECES_PER_THREAD)).max(1 << 16);
        let (mut last, cuts, quoted) = boundaries_quoted(&buf, every);
        if eof {
            last = buf.len();
        } else if last == 0 {
            // a record longer than the buffer: read more
            if got == 0 {
                last = buf.len();
            } else if buf.len() > MAX_RECORD {
                return Err(Error::runtime(format!(
                    "{}, line {line}: a record is longer than {} MB (no line break found); the file is not a text table or a quote is not closed",
                    p.path,
                    MAX_RECORD >> 20
                )));
            } else {
                grow = true;
                continue;
            }
        }
        grow = false;
        let mut starts = vec![0];
        starts.extend(cuts.iter().copied().filter(|&c| c < last));
        let ranges: Vec<(usize, usize)> = starts.iter().enumerate().map(|(k, &s)| (s, *starts.get(k + 1).unwrap_or(&last))).collect();
        // the parsers on rayon's workers poll the session's interrupt flag (guard::Poll)
        let poll = beluga_runtime::guard::Poll::new();
        // the next read (the incomplete record after `last`, then the following bytes) goes
        // into `spare` on one worker while the others parse: no core waits for the file
        spare.clear();
        spare.extend_from_slice(&buf[last..]);
        let next_want = CHUNK.saturating_sub(spare.len()).max(1 << 20);
        let prefetch = !eof && beluga_runtime::guard::charge((buf.len() + spare.len() + next_want) as u64).is_ok();
        let parsed = &*buf;
        let f = &mut f;
        let spare_ref = &mut *spare;
        // the workers parse this chunk (one of them also reads the next) while this thread
        // hands the previous chunk's tables to `sink` (partitioning, buffering, and the
        // encoding and writing of a flush): no core waits for the sink
        let ((results, read), delivered) = std::thread::scope(|sc| {
            let work = sc.spawn(|| {
                rayon::join(
                    || {
                        ranges
                            .par_iter()
                            .map(|&(s, e)| {
                                let r = poll.scope(|| parse_piece_noted(&parsed[s..e], &p.dialect, &p.specs, p.width, quoted));
                                progress.add((e - s) as u64);
                                r
                            })
                            .collect::<Vec<_>>()
                    },
                    || {
                        prefetch.then(|| {
                            spare_ref.reserve(next_want + 64);
                            f.take(next_want as u64).read_to_end(spare_ref).map(|g| (g, next_want))
                        })
                    },
                )
            });
            let delivered = pending.take().map_or(Ok(()), |c| deliver(c, sink));
            // a panic of a parser is passed on as it is
            (work.join().unwrap_or_else(|e| std::panic::resume_unwind(e)), delivered)
        });
        // the earlier chunk's failure first: its records precede this chunk's
        delivered?;
        ahead = read;
        let mut chunks = Vec::with_capacity(results.len());
        let mut recs = 0;
        for r in results {
            match r {
                Ok((cols, n, notes)) => {
                    p.notes.lock().unwrap_or_else(|e| e.into_inner()).absorb(&notes, line - p.lines_before - 1 + recs);
                    chunks.push((cols, line + recs));
                    recs += n;
                }
                Err(e) => {
                    let at = line + recs + e.rec;
                    let col = match e.col {
                        Some(k) => format!(", column {}", p.specs[k].name),
                        None => String::new(),
                    };
                    return Err(Error::runtime(format!("{}, line {at}{col}: {}", p.path, e.msg)));
                }
            }
        }
        pending = Some((chunks, line));
        line += recs;
        if ahead.is_some() {
            std::mem::swap(buf, spare);
        } else {
            buf.drain(..last);
        }
        if eof && buf.is_empty() {
            break;
        }
    }
    if let Some(c) = pending.take() {
        deliver(c, sink)?;
    }
    drop(progress);
    Ok(())
}

fn common_args(args: &[Value], f: &str, at: usize) -> Result<(String, Option<Arc<Table>>, usize)> {
    let delim = match opt(args, at) {
        Some(v) => delimiter_of(f, v)?,
        None => ",".to_string(),
    };
    let schema = match opt(args, at + 1) {
        Some(Value::Table(t)) => Some(t.clone()),
        Some(_) => return Err(Error::arg(format!("The schema argument of [{f}] must be a table"))),
        None => None,
    };
    let skip = match opt(args, at + 2) {
        Some(v) => v.as_i64().filter(|n| (0..=1024).contains(n)).ok_or_else(|| Error::arg("skipRows must be an integer between 0 and 1024"))? as usize,
        None => 0,
    };
    Ok((delim, schema, skip))
}

fn contain_header(v: Option<&Value>) -> Option<bool> {
    v.and_then(|x| x.as_bool())
}

/// The whole file as an in-memory table.
pub fn load_file(p: &Plan) -> Result<Table> {
    let mut parts: Vec<Table> = Vec::new();
    read_chunks(p, false, &mut |t, _| {
        parts.push(t);
        Ok(())
    })?;
    let names: Vec<String> = p.specs.iter().map(|s| s.name.clone()).collect();
    if parts.len() == 1 {
        return Ok(parts.pop().unwrap_or_default());
    }
    // one copy of every column, the columns on rayon's workers
    let cols: Vec<Column> = p
        .specs
        .par_iter()
        .enumerate()
        .map(|(k, s)| {
            let v: Vec<&Column> = parts.iter().map(|t| &t.cols[k]).collect();
            if v.is_empty() { Column::nulls(s.ty, 0) } else { concat(s.ty, &v) }
        })
        .collect();
    Table::new(names, cols)
}

/// Array-vector columns of the plan (schema type `INT[]` ...): they are read as text and
/// split on `arrayDelimiter` afterwards (progr/data_types_forms/arrayVector.md). Returns
/// (column, array type) and leaves those specs as STRING.
fn array_specs(p: &mut Plan) -> Vec<(usize, DataType)> {
    let mut out = Vec::new();
    for (k, s) in p.specs.iter_mut().enumerate() {
        if s.ty.array_elem().is_some() {
            out.push((k, s.ty));
            s.ty = DataType::String;
        }
    }
    out
}

/// The `arrayDelimiter` argument (a one-character string; `,` when not given).
fn array_delimiter(f: &str, v: Option<&Value>) -> Result<String> {
    match v {
        None | Some(Value::Void) => Ok(",".to_string()),
        Some(v) => {
            let s = str_of(f, v, "arrayDelimiter")?;
            if s.is_empty() {
                return Err(Error::arg(format!("The arrayDelimiter of [{f}] must not be empty")));
            }
            Ok(s.to_string())
        }
    }
}

/// Split the text columns `arrays` of a loaded chunk into array-vector columns: each
/// field's elements are separated by `delim` (an empty field is one null element) and
/// parsed as the element type.
fn split_arrays(mut t: Table, arrays: &[(usize, DataType)], delim: &str) -> Result<Table> {
    for &(k, ty) in arrays {
        let Some(elem) = ty.array_elem() else { continue };
        let c = &t.cols[k];
        let mut pieces = StrCol::with_capacity(c.len(), 0);
        let mut offsets = Vec::with_capacity(c.len() + 1);
        offsets.push(0usize);
        for r in 0..c.len() {
            let s = c.str_at(r).unwrap_or("").trim();
            if s.is_empty() {
                pieces.push("");
            } else {
                for x in s.split(delim) {
                    pieces.push(x.trim());
                }
            }
            offsets.push(pieces.len());
        }
        let text = Column::new(DataType::String, ColData::Str(pieces));
        let flat = beluga_runtime::kernels::cast::cast_column(&text, elem)
            .map_err(|e| Error::runtime(format!("column {}: {}", t.names[k], e.message)))?;
        t.cols[k] = Column::from_array(Arc::new(beluga_runtime::value::ArrayVec::new(offsets, flat)));
    }
    Ok(t)
}

/// `loadText(filename, [delimiter], [schema], [skipRows], [arrayDelimiter], [containHeader])`.
pub fn load_text(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let path = str_of("loadText", &args[0], "filename")?;
    let (delim, schema, skip) = common_args(&args, "loadText", 1)?;
    let mut p = plan(path, &delim, schema.as_deref(), skip, contain_header(opt(&args, 5)))?;
    let arrays = array_specs(&mut p);
    let adelim = array_delimiter("loadText", opt(&args, 4))?;
    let t = split_arrays(load_file(&p)?, &arrays, &adelim)?;
    p.report().iter().for_each(|l| i.emit(l));
    Ok(Value::table(t))
}

/// `extractTextSchema(filename, [delimiter], [skipRows])`.
pub fn extract_text_schema(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let path = str_of("extractTextSchema", &args[0], "filename")?;
    let delim = match opt(&args, 1) {
        Some(v) => delimiter_of("extractTextSchema", v)?,
        None => ",".into(),
    };
    let skip = opt(&args, 2).and_then(|v| v.as_i64()).unwrap_or(0).clamp(0, 1024) as usize;
    let p = plan(path, &delim, None, skip, None)?;
    let names: Vec<&str> = p.specs.iter().map(|s| s.name.as_str()).collect();
    let types: Vec<&str> = p.specs.iter().map(|s| s.ty.name()).collect();
    Ok(Value::table(Table::new(
        vec!["name".into(), "type".into()],
        vec![
            Column::new(DataType::String, ColData::Str(StrCol::from_iter(names))),
            Column::new(DataType::String, ColData::Str(StrCol::from_iter(types))),
        ],
    )?))
}

/// `loadTextEx(dbHandle, tableName, partitionColumns, filename, [delimiter], [schema], [skipRows], [transform], …)`.
pub fn load_text_ex(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let f = "loadTextEx";
    let db = as_db(&args[0]).ok_or_else(|| Error::arg("The first argument of [loadTextEx] must be a database handle"))?;
    let tname = match &args[1] {
        Value::Void => String::new(),
        v => str_of(f, v, "tableName")?.to_string(),
    };
    let part_cols = names_of(f, &args[2])?;
    let path = str_of(f, &args[3], "filename")?.to_string();
    let (delim, schema, skip) = common_args(&args, f, 4)?;
    let transform = opt(&args, 7).cloned();
    let mut p = plan(&path, &delim, schema.as_deref(), skip, contain_header(opt(&args, 11)))?;
    // without a schema, an existing table's column types decide how its fields are parsed
    if let (Some(dir), None, None) = (&db.dir, &schema, &transform) {
        if !tname.is_empty() && crate::catalog::table_exists(dir, &tname) {
            let meta = crate::catalog::read_table(dir, &tname)?;
            if meta.types.len() == p.specs.len() {
                for (s, ty) in p.specs.iter_mut().zip(&meta.types) {
                    s.ty = *ty;
                }
            }
        }
    }
    let types: Vec<DataType> = p.specs.iter().map(|s| s.ty).collect();
    let arrays = array_specs(&mut p);
    let adelim = array_delimiter(f, opt(&args, 10))?;
    let Some(dir) = db.dir.clone() else {
        // an in-memory database: the file as a table
        let t = split_arrays(load_file(&p)?, &arrays, &adelim)?;
        p.report().iter().for_each(|l| i.emit(l));
        return Ok(Value::table(t));
    };
    if tname.is_empty() {
        return Err(Error::arg("[loadTextEx] needs a table name for a database on disk"));
    }
    let mut ap = if crate::catalog::table_exists(&dir, &tname) {
        Appender::open(&dir, &tname)?
    } else {
        if transform.is_some() {
            return Err(Error::runtime(format!("The table {tname} must be created before loadTextEx is given a transform")));
        }
        let names = p.specs.iter().map(|s| s.name.clone()).collect();
        let ap = Appender::create(&dir, &tname, names, types, part_cols.clone())?;
        // the table's creation is part of the import: commit both together
        ap
    };
    let path2 = path.clone();
    // a transform sees whole chunks, as before; otherwise the appender splits each
    // worker's piece by partition without a merged copy
    read_chunks(&p, transform.is_some(), &mut |t, first_line| {
        let t = split_arrays(t, &arrays, &adelim)?;
        let t = match &transform {
            Some(tf) => match i.call_value(tf, vec![Value::table(t)])? {
                Value::Table(t) => (*t).clone(),
                _ => return Err(Error::runtime("The transform function of loadTextEx must return a table")),
            },
            None => t,
        };
        let info = |r: usize| format!("file {path2}, line {}", first_line + r);
        ap.push_keyed(&t, Some(&info), Some(&mut |text: &str, c: &beluga_runtime::Column| crate::partfn::apply(i, text, c)))
    })?;
    ap.commit()?;
    p.report().iter().for_each(|l| i.emit(l));
    Ok(table_value(db, &tname))
}

// ------------------------------------------------------------------ saveText

fn quote_into(out: &mut Vec<u8>, s: &str, delim: &[u8]) {
    let needs = s.contains('"') || s.contains('\n') || s.contains('\r') || (!delim.is_empty() && s.as_bytes().windows(delim.len()).any(|w| w == delim));
    if needs {
        out.push(b'"');
        for b in s.bytes() {
            if b == b'"' {
                out.push(b'"');
            }
            out.push(b);
        }
        out.push(b'"');
    } else {
        out.extend_from_slice(s.as_bytes());
    }
}

fn cell(out: &mut Vec<u8>, c: &Column, r: usize, delim: &[u8]) {
    use std::io::Write as _;
    // a NaN is a value and is written as `NaN` (runtime null.rs)
    if c.is_null_strict(r) {
        return;
    }
    match &*c.data {
        ColData::F64(v) => {
            let _ = write!(out, "{}", v[r]);
        }
        ColData::F32(v) => {
            let _ = write!(out, "{}", v[r]);
        }
        ColData::I32(v) if !c.ty.is_temporal() && c.ty.decimal_scale().is_none() => {
            let _ = write!(out, "{}", v[r]);
        }
        ColData::I64(v) if !c.ty.is_temporal() && c.ty.decimal_scale().is_none() => {
            let _ = write!(out, "{}", v[r]);
        }
        ColData::Str(s) => quote_into(out, s.get(r), delim),
        ColData::Sym(s) => quote_into(out, s.get(r), delim),
        // an array row: its elements joined by commas (quoted when the delimiter is one)
        ColData::Array(a) => {
            let text: Vec<String> = (a.offsets[r]..a.offsets[r + 1]).map(|p| beluga_runtime::fmt::format_elem(&a.data, p)).collect();
            quote_into(out, &text.join(","), delim)
        }
        _ => quote_into(out, &beluga_runtime::fmt::format_elem(c, r), delim),
    }
}

/// `saveText(obj, filename, [delimiter], [append], [header], [bom])`.
pub fn save_text(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let path = str_of("saveText", &args[1], "filename")?.to_string();
    let delim = match opt(&args, 2) {
        Some(v) => delimiter_of("saveText", v)?,
        None => ",".into(),
    };
    let append = opt(&args, 3).and_then(|v| v.as_bool()).unwrap_or(false);
    let header = opt(&args, 4).and_then(|v| v.as_bool()).unwrap_or(true);
    let bom = opt(&args, 5).and_then(|v| v.as_str()).is_some_and(|s| s.eq_ignore_ascii_case("UTF-8"));
    let obj = match &args[0] {
        Value::Code(e) => i.eval(e)?,
        v => v.clone(),
    };
    let t: Table = match &obj {
        Value::Table(t) => (**t).clone(),
        Value::Handle(_) => match as_table(&obj) {
            Some(h) => crate::builtins_db::materialize(h)?,
            None => return Err(Error::arg("saveText can't save a database handle")),
        },
        Value::Vector(c) => Table::new(vec!["".into()], vec![c.clone()])?,
        Value::Matrix(m) => Table::new((0..m.cols).map(|k| format!("col{k}")).collect(), (0..m.cols).map(|k| m.column(k)).collect())?,
        other => return Err(Error::unsupported("saveText", beluga_runtime::eval::ops::describe(other))),
    };
    let is_vector = matches!(obj, Value::Vector(_) | Value::Matrix(_));
    let existing = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    let write_header = header && !is_vector && !(append && existing > 0);
    let file = std::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .append(append)
        .truncate(!append)
        .open(&path)
        .map_err(|e| Error::new(ErrorKind::Io, format!("Can't write the file {path}: {e}")))?;
    let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
    let d = delim.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(1 << 16);
    if bom && !(append && existing > 0) {
        out.extend_from_slice(&[0xEF, 0xBB, 0xBF]);
    }
    if write_header {
        for (k, n) in t.names.iter().enumerate() {
            if k > 0 {
                out.extend_from_slice(d);
            }
            quote_into(&mut out, n, d);
        }
        out.push(b'\n');
    }
    let werr = |e: std::io::Error| Error::new(ErrorKind::Io, format!("Can't write the file {path}: {e}"));
    for r in 0..t.rows() {
        for (k, c) in t.cols.iter().enumerate() {
            if k > 0 {
                out.extend_from_slice(d);
            }
            cell(&mut out, c, r, d);
        }
        out.push(b'\n');
        if out.len() >= 1 << 16 {
            w.write_all(&out).map_err(werr)?;
            out.clear();
        }
    }
    w.write_all(&out).map_err(werr)?;
    w.flush().map_err(werr)?;
    Ok(Value::Void)
}

// ------------------------------------------------------------------ files

/// SQL `like` with `%` and `_`, case-insensitive (as `files` matches names).
fn like(name: &str, pat: &str) -> bool {
    fn go(n: &[u8], p: &[u8]) -> bool {
        match p.first() {
            None => n.is_empty(),
            Some(b'%') => (0..=n.len()).any(|k| go(&n[k..], &p[1..])),
            Some(b'_') => !n.is_empty() && go(&n[1..], &p[1..]),
            Some(&c) => n.first().is_some_and(|&x| x.eq_ignore_ascii_case(&c)) && go(&n[1..], &p[1..]),
        }
    }
    go(name.as_bytes(), pat.as_bytes())
}

/// `files(directory, [pattern])`: filename, isDir, fileSize, lastAccessed, lastModified.
pub fn files(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let dir = str_of("files", &args[0], "directory")?;
    let pat = match opt(&args, 1) {
        Some(v) => Some(str_of("files", v, "pattern")?.to_string()),
        None => None,
    };
    let rd = std::fs::read_dir(dir).map_err(|e| Error::new(ErrorKind::Io, format!("Can't list the directory {dir}: {e}")))?;
    let mut rows: Vec<(String, bool, i64, i64, i64)> = Vec::new();
    let ms = |t: std::io::Result<std::time::SystemTime>| -> i64 {
        t.ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map(|d| d.as_millis() as i64).unwrap_or(i64::NULL)
    };
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if pat.as_deref().is_some_and(|p| !like(&name, p)) {
            continue;
        }
        let md = e.metadata().ok();
        let is_dir = md.as_ref().is_some_and(|m| m.is_dir());
        let size = md.as_ref().map(|m| if m.is_dir() { 0 } else { m.len() as i64 }).unwrap_or(0);
        let acc = md.as_ref().map(|m| ms(m.accessed())).unwrap_or(i64::NULL);
        let modi = md.as_ref().map(|m| ms(m.modified())).unwrap_or(i64::NULL);
        rows.push((name, is_dir, size, acc, modi));
    }
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(Value::table(Table::new(
        vec!["filename".into(), "isDir".into(), "fileSize".into(), "lastAccessed".into(), "lastModified".into()],
        vec![
            Column::new(DataType::String, ColData::Str(StrCol::from_iter(rows.iter().map(|r| r.0.as_str())))),
            Column::from_vec(DataType::Bool, rows.iter().map(|r| r.1 as i8).collect::<Vec<i8>>()),
            Column::from_vec(DataType::Long, rows.iter().map(|r| r.2).collect::<Vec<i64>>()),
            Column::from_vec(DataType::Timestamp, rows.iter().map(|r| r.3).collect::<Vec<i64>>()),
            Column::from_vec(DataType::Timestamp, rows.iter().map(|r| r.4).collect::<Vec<i64>>()),
        ],
    )?))
}

#[cfg(test)]
mod tests {
    #[test]
    fn progress_bar_frames() {
        let l = super::progress_line("f.csv", 50_000_000, 100_000_000, 2.3);
        assert!(l.starts_with("\rf.csv [###############               ]  50.0% 50 MB, 2.3s"), "{l:?}");
        assert!(super::progress_line("f", 7, 0, 1.0).contains("100.0%"));
        // not a terminal (as under cargo test): no drawing thread
        assert!(super::Progress::new(10, "f").ticker.is_none() || std::io::IsTerminal::is_terminal(&std::io::stderr()));
    }

    /// A file of several reads (`CHUNK` bytes each, the next read while the last one is
    /// parsed): every record arrives once, in order, with its symbol, and the pieces of
    /// every read are passed on unmerged.
    #[test]
    fn file_of_many_chunks_reads_every_record_once() {
        use std::io::Write;
        let path = std::env::temp_dir().join(format!("beluga-text-chunks-{}.csv", std::process::id()));
        let rows: i64 = 3_000_000;
        {
            let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
            writeln!(f, "id,sym,x,note").unwrap();
            for r in 0..rows {
                // ~27 bytes a record: about 2.5 reads of CHUNK bytes
                writeln!(f, "{r},S{},{}.25,padding", r % 37, r % 1000).unwrap();
            }
        }
        let p = super::plan(path.to_str().unwrap(), ",", None, 0, None).unwrap();
        assert!(std::fs::metadata(&path).unwrap().len() as usize > 2 * super::CHUNK);
        let mut pieces = 0;
        let mut next_id = 0i64;
        let mut next_line = 2;
        super::read_chunks(&p, false, &mut |t, first_line| {
            pieces += 1;
            assert_eq!(first_line, next_line);
            for r in 0..t.rows() {
                assert_eq!(t.cols[0].i64_at(r), Some(next_id));
                assert_eq!(t.cols[1].str_at(r).map(|s| s.to_string()), Some(format!("S{}", next_id % 37)));
                next_id += 1;
            }
            next_line += t.rows();
            Ok(())
        })
        .unwrap();
        assert_eq!(next_id, rows);
        assert!(pieces > 3, "{pieces}");
        let t = super::load_file(&p).unwrap();
        assert_eq!(t.rows(), rows as usize);
        assert_eq!(t.cols[2].f64_at(rows as usize - 1), Some(((rows - 1) % 1000) as f64 + 0.25));
        let _ = std::fs::remove_file(&path);
    }

    /// Quoted fields holding the delimiter, doubled quotes and line breaks, CRLF line
    /// ends, empty fields (NULL) and invalid dates (NULL) in a file of several reads: the
    /// cuts between pieces and reads fall inside and beside quoted fields, and every
    /// record reads back whole.
    #[test]
    fn quoted_records_across_pieces_and_reads() {
        use beluga_runtime::DataType;
        use std::io::Write;
        let path = std::env::temp_dir().join(format!("beluga-text-quoted-{}.csv", std::process::id()));
        let rows: usize = 700_000;
        let date = |r: usize| if r % 1000 == 999 { "2020.02.30".to_string() } else { format!("2020.01.{:02}", r % 28 + 1) };
        {
            let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
            write!(f, "id,note,q,d,v\r\n").unwrap();
            for r in 0..rows {
                let v = if r % 10 == 0 { String::new() } else { format!("{}.5", r % 977) };
                // about 60 bytes a record: more than one read of CHUNK bytes
                write!(f, "{r},\"note {r}, with a comma\nand a line break\",\"q\"\"uote\",{},{v}\r\n", date(r)).unwrap();
            }
        }
        assert!(std::fs::metadata(&path).unwrap().len() as usize > super::CHUNK);
        let mut p = super::plan(path.to_str().unwrap(), ",", None, 0, None).unwrap();
        for (k, ty) in [DataType::Int, DataType::String, DataType::String, DataType::Date, DataType::Double].into_iter().enumerate() {
            p.specs[k].ty = ty;
        }
        let mut next = 0usize;
        super::read_chunks(&p, false, &mut |t, _| {
            for r in 0..t.rows() {
                let id = next;
                assert_eq!(t.cols[0].i64_at(r), Some(id as i64));
                assert_eq!(t.cols[1].str_at(r).map(|s| s.to_string()), Some(format!("note {id}, with a comma\nand a line break")));
                assert_eq!(t.cols[2].str_at(r), Some("q\"uote"));
                if id % 1000 == 999 {
                    assert!(t.cols[3].is_null(r), "row {id}: an invalid date is NULL");
                } else {
                    let want = beluga_runtime::kernels::parse::parse_temporal(DataType::Date, &date(id));
                    assert_eq!(t.cols[3].i64_at(r), want, "row {id}");
                }
                if id % 10 == 0 {
                    assert!(t.cols[4].is_null(r), "row {id}: an empty field is NULL");
                } else {
                    assert_eq!(t.cols[4].f64_at(r), Some((id % 977) as f64 + 0.5));
                }
                next += 1;
            }
            Ok(())
        })
        .unwrap();
        assert_eq!(next, rows);
        let _ = std::fs::remove_file(&path);
    }

    /// The sink receives a chunk while the next one is parsed: a failure of the sink is
    /// the import's error (nothing more is passed on), and a parse error of a later chunk
    /// names its line after every earlier record was passed on.
    #[test]
    fn errors_of_the_sink_and_of_later_chunks_in_order() {
        use std::io::Write;
        let path = std::env::temp_dir().join(format!("beluga-text-errors-{}.csv", std::process::id()));
        let rows: usize = 3_000_000;
        let bad = 2_900_000;
        {
            let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
            writeln!(f, "id,sym").unwrap();
            for r in 0..rows {
                if r == bad {
                    f.write_all(b"2900000,SYM\xff\xfe\n").unwrap();
                } else {
                    writeln!(f, "{r},SYM{}", r % 50).unwrap();
                }
            }
        }
        assert!(std::fs::metadata(&path).unwrap().len() as usize > super::CHUNK);
        let p = super::plan(path.to_str().unwrap(), ",", None, 0, None).unwrap();
        let mut calls = 0;
        let e = super::read_chunks(&p, false, &mut |_, _| {
            calls += 1;
            Err(beluga_runtime::Error::runtime("sink refused"))
        })
        .unwrap_err();
        assert_eq!((e.message.as_str(), calls), ("sink refused", 1));
        let mut seen = 0usize;
        let e = super::read_chunks(&p, false, &mut |t, _| {
            seen += t.rows();
            Ok(())
        })
        .unwrap_err();
        // the header is line 1: record r is on line r + 2
        assert!(e.message.contains(&format!("line {}", bad + 2)) && e.message.contains("UTF-8"), "{}", e.message);
        // every record of the reads before the failing one was passed on
        assert!(seen > 0 && seen <= bad, "{seen}");
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn like_patterns() {
        assert!(super::like("README_WIN.txt", "readme%"));
        assert!(super::like("TAQ20070801.csv", "TAQ%.csv"));
        assert!(!super::like("x.csv", "TAQ%.csv"));
    }
}

/// The delimiter argument: a string, or a CHAR (`loadText(f, ',')`, `delimiter='#'`).
fn delimiter_of(f: &str, v: &Value) -> Result<String> {
    if let Value::Scalar(c) = v {
        if c.ty == DataType::Char {
            return match c.i64_at(0) {
                Some(b) if (1..128).contains(&b) => Ok((b as u8 as char).to_string()),
                _ => Err(Error::arg(format!("The delimiter argument of [{f}] must be an ASCII character"))),
            };
        }
    }
    Ok(str_of(f, v, "delimiter")?.to_string())
}
