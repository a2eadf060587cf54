//! Segment files: all columns of one segment of one partition in a single file, so that an
//! import creates one file per partition instead of one per column. They live in the
//! folder of the partition's first level, deeper levels in the name
//! (`20070801/AAPL_IBM.12.seg` for partition `20070801/AAPL_IBM`, segment 12; see
//! `catalog::seg_file`), so that no folder is created per partition either.
//!
//! Layout: `BLGSEG01`, u32 column count, per column (u64 offset, u64 length) from the start
//! of the file, a checksum of those bytes; then one column file image (see `column_file`,
//! checksummed header and blocks) per column. Readers fetch the directory and then only the
//! byte range of the column they need.
//!
//! Columns are still named by `catalog::col_file` paths (`<segment>_<column>.col`), which
//! stay the identity of a column for caches and the format of databases written before
//! segment files existed: `open_column` reads the segment file when there is one and the
//! old per-column file otherwise.

use crate::bin::{checksum, corrupt};
use crate::catalog::io_err;
use crate::column_file::ColumnFile;
use beluga_runtime::{Column, Result};
use std::fs::File;
use std::io::ErrorKind as IoKind;
use std::path::{Path, PathBuf};

pub const SEG_MAGIC: &[u8; 8] = b"BLGSEG01";
const FIXED: usize = 12; // magic + column count
/// Most columns a table may have (bounds the directory read from a damaged file).
const MAX_COLS: usize = 1 << 16;

pub use crate::catalog::seg_file;

/// Encode the columns of one segment (SYMBOL codes refer to the table's symbol base).
pub fn encode(cols: &[Column]) -> Vec<u8> {
    let images: Vec<Vec<u8>> = cols.iter().map(crate::column_file::encode).collect();
    let dir_len = FIXED + images.len() * 16 + 8;
    let total = dir_len + images.iter().map(|b| b.len()).sum::<usize>();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(SEG_MAGIC);
    out.extend_from_slice(&(images.len() as u32).to_le_bytes());
    let mut off = dir_len as u64;
    for b in &images {
        out.extend_from_slice(&off.to_le_bytes());
        out.extend_from_slice(&(b.len() as u64).to_le_bytes());
        off += b.len() as u64;
    }
    let sum = checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    for b in &images {
        out.extend_from_slice(b);
    }
    out
}

/// Segment file, column index and per-column file of an older database, named by a
/// `catalog::col_file` path (`[<levels>.]<segment>_<column>.col`).
fn locate(p: &Path) -> Option<(PathBuf, usize, PathBuf)> {
    let name = p.file_name()?.to_str()?;
    let stem = name.strip_suffix(".col")?;
    let (pre, segcol) = match stem.rsplit_once('.') {
        Some((a, b)) => (Some(a), b),
        None => (None, stem),
    };
    let (seg, col) = segcol.split_once('_')?;
    let seg: u64 = seg.parse().ok()?;
    let col: usize = col.parse().ok()?;
    let legacy = match pre {
        Some(a) => p.parent()?.join(a.replace('.', "/")).join(format!("{seg}_{col}.col")),
        None => p.to_path_buf(),
    };
    let seg_name = match pre {
        Some(a) => format!("{a}.{seg}.seg"),
        None => format!("{seg}.seg"),
    };
    Some((p.with_file_name(seg_name), col, legacy))
}

/// Size and modification time (ns since the epoch) of the file holding a column: the
/// identity under which decoded columns may be cached (files are never rewritten in place).
pub fn stamp(p: &Path) -> Result<(u64, i128)> {
    let loc = locate(p);
    let md = match loc.as_ref().map(|(s, _, _)| std::fs::metadata(s)) {
        Some(Ok(md)) => md,
        Some(Err(e)) if e.kind() != IoKind::NotFound => return Err(io_err(p, e)),
        _ => {
            let old = loc.map(|(_, _, l)| l).unwrap_or_else(|| p.to_path_buf());
            std::fs::metadata(&old).map_err(|e| io_err(&old, e))?
        }
    };
    let mtime = md.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map(|d| d.as_nanos() as i128).unwrap_or(0);
    Ok((md.len(), mtime))
}

/// Open the column named by a `catalog::col_file` path: from its segment file, or from a
/// per-column file of an older database.
pub fn open_column(p: &Path) -> Result<ColumnFile> {
    let loc = locate(p);
    if let Some((seg, col, _)) = &loc {
        match File::open(seg) {
            Ok(f) => return read_column(&f, seg, *col),
            Err(e) if e.kind() != IoKind::NotFound => return Err(io_err(seg, e)),
            Err(_) => {}
        }
    }
    let old = loc.map(|(_, _, l)| l).unwrap_or_else(|| p.to_path_buf());
    let bytes = std::fs::read(&old).map_err(|e| io_err(&old, e))?;
    ColumnFile::open(bytes, &old.display().to_string())
}

fn read_at(f: &File, buf: &mut [u8], off: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        f.read_exact_at(buf, off)
    }
    #[cfg(not(unix))]
    {
        use std::io::{Read, Seek, SeekFrom};
        let mut f = f;
        f.seek(SeekFrom::Start(off))?;
        f.read_exact(buf)
    }
}

/// Read column `col` of an open segment file.
pub fn read_column(f: &File, path: &Path, col: usize) -> Result<ColumnFile> {
    let name = path.display().to_string();
    let len = f.metadata().map_err(|e| io_err(path, e))?.len();
    let short = |e: std::io::Error| if e.kind() == IoKind::UnexpectedEof { corrupt(&name, "truncated") } else { io_err(path, e) };
    let mut fixed = [0u8; FIXED];
    read_at(f, &mut fixed, 0).map_err(short)?;
    if &fixed[..8] != SEG_MAGIC {
        return Err(corrupt(&name, "not a segment file"));
    }
    let ncols = u32::from_le_bytes([fixed[8], fixed[9], fixed[10], fixed[11]]) as usize;
    if ncols > MAX_COLS || (FIXED + ncols * 16 + 8) as u64 > len {
        return Err(corrupt(&name, "bad column directory"));
    }
    let mut dir = vec![0u8; FIXED + ncols * 16 + 8];
    read_at(f, &mut dir, 0).map_err(short)?;
    let body = dir.len() - 8;
    let want = u64::from_le_bytes(dir[body..].try_into().map_err(|_| corrupt(&name, "directory"))?);
    if checksum(&dir[..body]) != want {
        return Err(corrupt(&name, "directory checksum mismatch"));
    }
    if col >= ncols {
        return Err(corrupt(&name, &format!("no column {col}")));
    }
    let at = FIXED + col * 16;
    let word = |k: usize| u64::from_le_bytes(dir[k..k + 8].try_into().unwrap_or([0; 8]));
    let (off, clen) = (word(at), word(at + 8));
    if off.checked_add(clen).is_none_or(|end| end > len) {
        return Err(corrupt(&name, "truncated"));
    }
    let mut bytes = vec![0u8; clen as usize];
    read_at(f, &mut bytes, off).map_err(short)?;
    ColumnFile::open(bytes, &format!("{name} (column {col})"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use beluga_runtime::column::ColData;
    use beluga_runtime::DataType;

    #[test]
    fn segment_files_round_trip_and_report_damage() {
        let dir = std::env::temp_dir().join(format!("beluga-seg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let a = Column::from_vec(DataType::Int, (0..100_000).map(|k| k * 3 - 7).collect::<Vec<i32>>());
        let b = Column::from_vec(DataType::Double, (0..100_000).map(|k| k as f64 / 8.0).collect::<Vec<f64>>());
        let bytes = encode(&[a, b]);
        let seg = dir.join("7.seg");
        std::fs::write(&seg, &bytes).unwrap();
        let col1 = crate::catalog::col_file(&dir, "", 7, 1);
        let c = open_column(&col1).unwrap().decode(None, None).unwrap();
        let ColData::F64(v) = &*c.data else { panic!("type") };
        assert_eq!((v.len(), v[99_999]), (100_000, 99_999.0 / 8.0));
        let c = open_column(&crate::catalog::col_file(&dir, "", 7, 0)).unwrap().decode(None, None).unwrap();
        assert_eq!(c.i64_at(5), Some(8));
        assert_eq!(stamp(&col1).unwrap().0, bytes.len() as u64);
        // a torn file is named in the error
        std::fs::write(&seg, &bytes[..bytes.len() - 100]).unwrap();
        let e = open_column(&col1).err().expect("torn");
        assert!(e.message.contains("7.seg"), "{}", e.message);
        // a damaged directory is detected
        let mut bad = bytes.clone();
        bad[14] ^= 1;
        std::fs::write(&seg, &bad).unwrap();
        assert!(open_column(&col1).err().expect("dir").message.contains("directory"));
        // databases written before segment files: per-column files
        std::fs::remove_file(&seg).unwrap();
        std::fs::write(&col1, crate::column_file::encode(&Column::from_vec(DataType::Long, vec![1i64, 2]))).unwrap();
        assert_eq!(open_column(&col1).unwrap().decode(None, None).unwrap().i64_at(1), Some(2));
        // deeper levels live in the first level's folder; older databases had a folder each
        let deep = crate::catalog::col_file(&dir, "20070801/A_B/Key3", 12, 4);
        assert_eq!(deep, dir.join("20070801").join("A_B.Key3.12_4.col"));
        let (s, c, old) = locate(&deep).unwrap();
        assert_eq!((s, c), (crate::catalog::seg_file(&dir, "20070801/A_B/Key3", 12), 4));
        assert_eq!(old, dir.join("20070801/A_B/Key3/12_4.col"));
        std::fs::create_dir_all(old.parent().unwrap()).unwrap();
        std::fs::write(&old, crate::column_file::encode(&Column::from_vec(DataType::Long, vec![5i64]))).unwrap();
        assert_eq!(open_column(&deep).unwrap().decode(None, None).unwrap().i64_at(0), Some(5));
        assert!(stamp(&deep).is_ok());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
