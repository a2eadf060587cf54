//! Segment files: all columns of one segment of one partition in a single file, so that an
//! import creates one file per partition instead of one per column. They live in the
//! folder of the partition's first level, deeper levels in the name
//! (`20070801/AAPL_IBM.12.seg` for partition `20070801/AAPL_IBM`, segment 12; see
//! `catalog::seg_file`), so that no folder is created per partition either.
//!
//! Layout: `BLGSEG02`, u32 column count, u32 owner length, the owner (`table/partition/segment
//! id`, see `owner`), per column (u64 offset, u64 length) from the start of the image, a
//! checksum of those bytes; then one column file image (see `column_file`, checksummed
//! header and blocks) per column. Readers fetch the directory and then only the byte range
//! of the column they need. The owner is checked on read, so that a segment copied into
//! another partition's (or table's) folder is reported as misplaced instead of being read
//! as that partition's data. `BLGSEG01` images (no owner) from older databases still read.
//!
//! Pack files: the segments one write adds to the partitions below one first-level folder
//! (the ~100 symbol ranges of a day) share one file, `<first>/<pack>.pack`, so that an
//! import creates one file per day instead of one per partition (file creation and the
//! sync of each file dominated writing small partitions). Their segment ids carry
//! `catalog::PACK_FLAG` and name the pack (`catalog::in_pack`). Layout: `BLGPAK01`, u32 entry
//! count, per entry (u64 segment id, u64 offset, u64 length) sorted by id, a checksum of
//! those bytes; then one segment image (the layout above, offsets relative to the image)
//! per entry.
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

pub const SEG_MAGIC: &[u8; 8] = b"BLGSEG02";
/// Segments written before images recorded their owner.
const SEG_MAGIC_V1: &[u8; 8] = b"BLGSEG01";
const FIXED: usize = 12; // magic + column count
/// Longest owner text a reader accepts (bounds the read of a damaged header).
const MAX_OWNER: usize = 1 << 12;
/// Most columns a table may have (bounds the directory read from a damaged file).
const MAX_COLS: usize = 1 << 16;

pub use crate::catalog::seg_file;

pub const PACK_MAGIC: &[u8; 8] = b"BLGPAK01";
/// Bytes read at once at the start of a pack (its directory, for up to ~160 entries).
const PACK_HEAD: u64 = 4096;

/// The directory of a pack file holding segment images of the given ids and lengths (in
/// id order); the images follow it in the same order.
/// The length of `pack_header` of `n` entries (it depends on their number only).
pub fn pack_header_len(n: usize) -> usize {
    FIXED + n * 24 + 8
}

pub fn pack_header(entries: &[(u64, usize)]) -> Vec<u8> {
    let dir_len = pack_header_len(entries.len());
    let mut out = Vec::with_capacity(dir_len);
    out.extend_from_slice(PACK_MAGIC);
    out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    let mut off = dir_len as u64;
    for &(id, len) in entries {
        out.extend_from_slice(&id.to_le_bytes());
        out.extend_from_slice(&off.to_le_bytes());
        out.extend_from_slice(&(len as u64).to_le_bytes());
        off += len as u64;
    }
    let sum = checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// Offset and length of the image of segment `id` in an open pack file.
pub(crate) fn pack_entry(f: &File, path: &Path, len: u64, id: u64) -> Result<(u64, u64)> {
    let name = path.display().to_string();
    let short = |e: std::io::Error| if e.kind() == IoKind::UnexpectedEof { corrupt(&name, "truncated") } else { io_err(path, e) };
    let mut head = vec![0u8; len.min(PACK_HEAD) as usize];
    read_at(f, &mut head, 0).map_err(short)?;
    if head.len() < FIXED || &head[..8] != PACK_MAGIC {
        return Err(corrupt(&name, "not a pack file"));
    }
    let n = u32::from_le_bytes([head[8], head[9], head[10], head[11]]) as u64;
    let dir_len = FIXED as u64 + n * 24 + 8;
    if n > crate::catalog::PACK_SLOTS || dir_len > len {
        return Err(corrupt(&name, "bad pack directory"));
    }
    if dir_len > head.len() as u64 {
        head = vec![0u8; dir_len as usize];
        read_at(f, &mut head, 0).map_err(short)?;
    }
    let body = dir_len as usize - 8;
    let word = |k: usize| u64::from_le_bytes(head[k..k + 8].try_into().unwrap_or([0; 8]));
    if checksum(&head[..body]) != word(body) {
        return Err(corrupt(&name, "pack directory checksum mismatch"));
    }
    let ids: Vec<u64> = (0..n as usize).map(|k| word(FIXED + k * 24)).collect();
    let k = ids.binary_search(&id).map_err(|_| corrupt(&name, &format!("no segment {id}")))?;
    let (off, slen) = (word(FIXED + k * 24 + 8), word(FIXED + k * 24 + 16));
    if off.checked_add(slen).is_none_or(|end| end > len) {
        return Err(corrupt(&name, "truncated"));
    }
    Ok((off, slen))
}

/// The identity a segment image records: its table, partition folder and segment id.
pub fn owner(tdir: &Path, part: &str, seg: u64) -> String {
    let table = tdir.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
    format!("{table}/{part}/{seg}")
}

/// Encode the columns of one segment (SYMBOL codes refer to the table's symbol base);
/// `owner` is `owner(tdir, part, seg)` of the place it is written for.
pub fn encode(cols: &[Column], owner: &str) -> Vec<u8> {
    let images: Vec<Vec<u8>> = cols.iter().map(crate::column_file::encode).collect();
    let head = FIXED + 4 + owner.len();
    let dir_len = head + images.len() * 16 + 8;
    let total = dir_len + images.iter().map(|b| b.len()).sum::<usize>();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(SEG_MAGIC);
    out.extend_from_slice(&(images.len() as u32).to_le_bytes());
    out.extend_from_slice(&(owner.len() as u32).to_le_bytes());
    out.extend_from_slice(owner.as_bytes());
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

/// Where a column named by a `catalog::col_file` path lives.
struct Place {
    /// the segment or pack file
    file: PathBuf,
    col: usize,
    /// the segment's id when `file` is a pack
    pack_id: Option<u64>,
    /// the per-column file of an older database
    legacy: PathBuf,
}

fn locate(p: &Path) -> Option<Place> {
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
    // deeper levels (a prefix) and a pack id: the first level's pack file
    if pre.is_some() && seg & crate::catalog::PACK_FLAG != 0 {
        let pack = p.with_file_name(format!("{}.pack", crate::catalog::pack_of(seg)));
        return Some(Place { file: pack, col, pack_id: Some(seg), legacy });
    }
    let seg_name = match pre {
        Some(a) => format!("{a}.{seg}.seg"),
        None => format!("{seg}.seg"),
    };
    Some(Place { file: p.with_file_name(seg_name), col, pack_id: None, legacy })
}

/// Size and modification time (ns since the epoch) of the file holding a column: the
/// identity under which decoded columns may be cached (files are never rewritten in place).
pub fn stamp(p: &Path) -> Result<(u64, i128)> {
    let loc = locate(p);
    let md = match loc.as_ref().map(|l| (l, std::fs::metadata(&l.file))) {
        Some((_, Ok(md))) => md,
        Some((l, Err(e))) if e.kind() != IoKind::NotFound || l.pack_id.is_some() => return Err(io_err(&l.file, e)),
        _ => {
            let old = loc.map(|l| l.legacy).unwrap_or_else(|| p.to_path_buf());
            std::fs::metadata(&old).map_err(|e| io_err(&old, e))?
        }
    };
    let mtime = md.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map(|d| d.as_nanos() as i128).unwrap_or(0);
    Ok((md.len(), mtime))
}

/// Open the column named by a `catalog::col_file` path: from its segment file, or from a
/// per-column file of an older database. With `owner`, a segment image that records a
/// different owner is an error (a file copied or moved into the wrong folder).
pub fn open_column(p: &Path, owner: Option<&str>) -> Result<ColumnFile> {
    let loc = locate(p);
    if let Some(l) = &loc {
        match (File::open(&l.file), l.pack_id) {
            (Ok(f), Some(id)) => {
                let len = f.metadata().map_err(|e| io_err(&l.file, e))?.len();
                let (off, slen) = pack_entry(&f, &l.file, len, id)?;
                return read_column_in(&f, &l.file, off, slen, l.col, owner);
            }
            (Ok(f), None) => {
                let len = f.metadata().map_err(|e| io_err(&l.file, e))?.len();
                return read_column_in(&f, &l.file, 0, len, l.col, owner);
            }
            (Err(e), id) if e.kind() != IoKind::NotFound || id.is_some() => return Err(io_err(&l.file, e)),
            (Err(_), _) => {}
        }
    }
    let old = loc.map(|l| l.legacy).unwrap_or_else(|| p.to_path_buf());
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

/// Read column `col` of the segment image at bytes [base, base + len) of an open file.
fn read_column_in(f: &File, path: &Path, base: u64, len: u64, col: usize, owner: Option<&str>) -> Result<ColumnFile> {
    let name = path.display().to_string();
    let short = |e: std::io::Error| if e.kind() == IoKind::UnexpectedEof { corrupt(&name, "truncated") } else { io_err(path, e) };
    let mut fixed = [0u8; FIXED + 4];
    read_at(f, &mut fixed[..FIXED], base).map_err(short)?;
    let v2 = &fixed[..8] == SEG_MAGIC;
    if !v2 && &fixed[..8] != SEG_MAGIC_V1 {
        return Err(corrupt(&name, "not a segment file"));
    }
    let ncols = u32::from_le_bytes([fixed[8], fixed[9], fixed[10], fixed[11]]) as usize;
    let olen = if v2 {
        read_at(f, &mut fixed, base).map_err(short)?;
        u32::from_le_bytes([fixed[12], fixed[13], fixed[14], fixed[15]]) as usize
    } else {
        0
    };
    let head = if v2 { FIXED + 4 + olen } else { FIXED };
    if ncols > MAX_COLS || olen > MAX_OWNER || (head + ncols * 16 + 8) as u64 > len {
        return Err(corrupt(&name, "bad column directory"));
    }
    let mut dir = vec![0u8; head + ncols * 16 + 8];
    read_at(f, &mut dir, base).map_err(short)?;
    let body = dir.len() - 8;
    let want = u64::from_le_bytes(dir[body..].try_into().map_err(|_| corrupt(&name, "directory"))?);
    if checksum(&dir[..body]) != want {
        return Err(corrupt(&name, "directory checksum mismatch"));
    }
    if let (true, Some(expect)) = (v2, owner) {
        let found = String::from_utf8_lossy(&dir[FIXED + 4..head]);
        if found != expect {
            return Err(corrupt(&name, &format!("it holds segment {found}, not {expect}: a file copied or moved into the wrong folder")));
        }
    }
    if col >= ncols {
        return Err(corrupt(&name, &format!("no column {col}")));
    }
    let at = head + col * 16;
    let word = |k: usize| u64::from_le_bytes(dir[k..k + 8].try_into().unwrap_or([0; 8]));
    let (off, clen) = (word(at), word(at + 8));
    if off.checked_add(clen).is_none_or(|end| end > len) {
        return Err(corrupt(&name, "truncated"));
    }
    let bytes = crate::mapped::read(f, base + off, clen, |buf| read_at(f, buf, base + off)).map_err(short)?;
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
        let bytes = encode(&[a, b], &owner(&dir, "", 7));
        let seg = dir.join("7.seg");
        std::fs::write(&seg, &bytes).unwrap();
        let col1 = crate::catalog::col_file(&dir, "", 7, 1);
        let c = open_column(&col1, None).unwrap().decode(None, None).unwrap();
        let ColData::F64(v) = &*c.data else { panic!("type") };
        assert_eq!((v.len(), v[99_999]), (100_000, 99_999.0 / 8.0));
        let c = open_column(&crate::catalog::col_file(&dir, "", 7, 0), None).unwrap().decode(None, None).unwrap();
        assert_eq!(c.i64_at(5), Some(8));
        assert_eq!(stamp(&col1).unwrap().0, bytes.len() as u64);
        // a torn file is named in the error
        std::fs::write(&seg, &bytes[..bytes.len() - 100]).unwrap();
        let e = open_column(&col1, None).err().expect("torn");
        assert!(e.message.contains("7.seg"), "{}", e.message);
        // a damaged directory is detected
        let mut bad = bytes.clone();
        bad[14] ^= 1;
        std::fs::write(&seg, &bad).unwrap();
        assert!(open_column(&col1, None).err().expect("dir").message.contains("directory"));
        // databases written before segment files: per-column files
        std::fs::remove_file(&seg).unwrap();
        std::fs::write(&col1, crate::column_file::encode(&Column::from_vec(DataType::Long, vec![1i64, 2]))).unwrap();
        assert_eq!(open_column(&col1, None).unwrap().decode(None, None).unwrap().i64_at(1), Some(2));
        // deeper levels live in the first level's folder; older databases had a folder each
        let deep = crate::catalog::col_file(&dir, "20070801/A_B/Key3", 12, 4);
        assert_eq!(deep, dir.join("20070801").join("A_B.Key3.12_4.col"));
        let l = locate(&deep).unwrap();
        assert_eq!((l.file, l.col, l.pack_id), (crate::catalog::seg_file(&dir, "20070801/A_B/Key3", 12), 4, None));
        let old = l.legacy;
        assert_eq!(old, dir.join("20070801/A_B/Key3/12_4.col"));
        std::fs::create_dir_all(old.parent().unwrap()).unwrap();
        std::fs::write(&old, crate::column_file::encode(&Column::from_vec(DataType::Long, vec![5i64]))).unwrap();
        assert_eq!(open_column(&deep, None).unwrap().decode(None, None).unwrap().i64_at(0), Some(5));
        assert!(stamp(&deep).is_ok());
        // pack files: segments of several partitions below one first-level folder
        let (p0, p1) = (crate::catalog::pack_seg_id(9, 0), crate::catalog::pack_seg_id(9, 1));
        let img0 = encode(&[Column::from_vec(DataType::Int, vec![1, 2, 3])], &owner(&dir, "20070802/A_C", p0));
        let img1 = encode(&[Column::from_vec(DataType::Int, vec![7]), Column::from_vec(DataType::Double, vec![0.5])], &owner(&dir, "20070802/C_D", p1));
        let mut pack = pack_header(&[(p0, img0.len()), (p1, img1.len())]);
        pack.extend_from_slice(&img0);
        pack.extend_from_slice(&img1);
        let pf = crate::catalog::seg_file(&dir, "20070802/C_D", p1);
        assert_eq!(pf, dir.join("20070802").join("9.pack"));
        std::fs::create_dir_all(pf.parent().unwrap()).unwrap();
        std::fs::write(&pf, &pack).unwrap();
        let c = |part: &str, seg: u64, col: usize| {
            open_column(&crate::catalog::col_file(&dir, part, seg, col), Some(&owner(&dir, part, seg))).and_then(|f| f.decode(None, None))
        };
        assert_eq!(c("20070802/A_C", p0, 0).unwrap().i64_at(2), Some(3));
        assert_eq!(c("20070802/C_D", p1, 0).unwrap().i64_at(0), Some(7));
        let ColData::F64(v) = &*c("20070802/C_D", p1, 1).unwrap().data else { panic!("type") };
        assert_eq!(v, &vec![0.5]);
        assert_eq!(stamp(&crate::catalog::col_file(&dir, "20070802/C_D", p1, 1)).unwrap().0, pack.len() as u64);
        let e = c("20070802/C_D", crate::catalog::pack_seg_id(9, 2), 0).err().expect("no such segment");
        assert!(e.message.contains("9.pack"), "{}", e.message);
        // a segment read under another partition's name is refused, naming both
        let e = open_column(&crate::catalog::col_file(&dir, "20070802/C_D", p1, 0), Some(&owner(&dir, "20070802/Z_Z", p1))).err().expect("misplaced");
        assert!(e.message.contains("20070802/C_D") && e.message.contains("wrong folder"), "{}", e.message);
        std::fs::write(&pf, &pack[..pack.len() - 3]).unwrap();
        assert!(c("20070802/C_D", p1, 1).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
