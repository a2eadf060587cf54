//! Header detection, column-name cleanup and type inference from a sample of records
//! (what `extractTextSchema` reports and `loadText` uses without a schema).

use super::lexer::{field_bytes, record, Dialect, Field, Rec};
use super::parse::int_field;
use ahash::AHashSet;
use beluga_runtime::kernels::parse::parse_temporal;
use beluga_runtime::DataType;

/// Records sampled for inference.
pub const SAMPLE_RECORDS: usize = 10_000;

/// DolphinDB's column-name rule: characters other than letters, digits and `_` become `_`;
/// a name not starting with a letter gets a `c` prefix.
pub fn clean_name(s: &str) -> String {
    let t: String = s.trim().chars().map(|c| if c.is_alphanumeric() || c == '_' { c } else { '_' }).collect();
    match t.chars().next() {
        Some(c) if c.is_alphabetic() => t,
        _ => format!("c{t}"),
    }
}

/// The first line is a header unless one of its fields starts with a digit.
pub fn looks_like_header(fields: &[Vec<u8>]) -> bool {
    !fields.iter().any(|f| f.first().is_some_and(|c| c.is_ascii_digit()))
}

/// Fields of the first record at `pos`.
pub fn first_record(buf: &[u8], pos: usize, d: &Dialect) -> Option<(Vec<Vec<u8>>, usize)> {
    let mut f: Vec<Field> = Vec::new();
    let mut scratch = Vec::new();
    match record(buf, pos, d, &mut f) {
        Rec::Next(q) => Some((f.iter().map(|x| field_bytes(buf, x, &mut scratch).to_vec()).collect(), q)),
        Rec::Unterminated => None,
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Empty,
    Bool,
    Int(bool), // true: needs LONG
    Float,
    /// `NaN`, `inf`, `-Infinity`: a float in a column of numbers, text on its own
    FloatWord,
    Temporal(DataType),
    Text,
}

fn is_date_sep(c: u8) -> bool {
    matches!(c, b'.' | b'-' | b'/')
}

/// Temporal type implied by the shape of the text, if it is a valid temporal value.
fn temporal_kind(s: &str) -> Option<DataType> {
    let b = s.as_bytes();
    let digits = |from: usize| b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let frac_type = |frac: usize, date: bool| match (frac, date) {
        (0, true) => DataType::DateTime,
        (0, false) => DataType::Second,
        (1..=3, true) => DataType::Timestamp,
        (1..=3, false) => DataType::Time,
        (_, true) => DataType::NanoTimestamp,
        (_, false) => DataType::NanoTime,
    };
    let time_type = |t: &[u8], date: bool| -> Option<DataType> {
        let colons = t.iter().filter(|&&c| c == b':').count();
        match colons {
            1 => Some(if date { DataType::DateTime } else { DataType::Minute }),
            2 => {
                let frac = t.iter().position(|&c| c == b'.').map(|k| t.len() - k - 1).unwrap_or(0);
                Some(frac_type(frac, date))
            }
            _ => None,
        }
    };
    let ty = if b.len() >= 8 && digits(0) == 4 && is_date_sep(b[4]) {
        // yyyy.MM.dd[ T]time or yyyy.MM
        let rest = &b[5..];
        let m = rest.iter().take_while(|c| c.is_ascii_digit()).count();
        if m == rest.len() || (rest.get(m) == Some(&b'M') && m + 1 == rest.len()) {
            DataType::Month
        } else if b.len() == 10 {
            DataType::Date
        } else if b.len() > 11 && matches!(b[10], b'T' | b' ') {
            time_type(&b[11..], true)?
        } else {
            return None;
        }
    } else if b.len() == 8 && digits(0) == 8 {
        let y: i64 = s[..4].parse().ok()?;
        if !(1900..=2100).contains(&y) {
            return None;
        }
        DataType::Date
    } else if b.len() == 6 && digits(0) == 6 {
        return yymmdd(s).map(|_| DataType::Date);
    } else if b.contains(&b':') && b.first().is_some_and(|c| c.is_ascii_digit()) && digits(0) <= 2 {
        time_type(b, false)?
    } else {
        return None;
    };
    parse_temporal(ty, s).map(|_| ty)
}

/// A DATE written yyMMdd without separators ("230810" is 2023.08.10), as text import
/// reads it (tutorials/data_import_details.md): the days, when the text is six digits
/// naming a valid day.
pub(crate) fn yymmdd(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() != 6 || !b.iter().all(|c| c.is_ascii_digit()) {
        return None;
    }
    parse_temporal(DataType::Date, &format!("20{}.{}.{}", &s[..2], &s[2..4], &s[4..6]))
}

fn classify(s: &str) -> Kind {
    let t = s.trim();
    if t.is_empty() {
        return Kind::Empty;
    }
    if let Some(ty) = temporal_kind(t) {
        return Kind::Temporal(ty);
    }
    if t.eq_ignore_ascii_case("true") || t.eq_ignore_ascii_case("false") {
        return Kind::Bool;
    }
    let b = t.as_bytes();
    let body = if matches!(b[0], b'-' | b'+') { &b[1..] } else { b };
    if !body.is_empty() && body.iter().all(|c| c.is_ascii_digit()) {
        // a code with leading zeros (stock code 000001, zip code 02134) is text: as an
        // integer it would lose them (tutorials/import_csv.md reads `000001` as SYMBOL)
        if body.len() > 1 && body[0] == b'0' {
            return Kind::Text;
        }
        return match int_field(b) {
            Some(v) if i32::try_from(v).is_ok() && v != i32::MIN as i64 => Kind::Int(false),
            Some(_) => Kind::Int(true),
            None => Kind::Text,
        };
    }
    if ["nan", "inf", "infinity"].iter().any(|w| std::str::from_utf8(body).is_ok_and(|x| x.eq_ignore_ascii_case(w))) {
        return Kind::FloatWord;
    }
    let numeric_chars = body.iter().all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'-' | b'+'));
    if numeric_chars && body.first().is_some_and(|c| c.is_ascii_digit() || *c == b'.') && t.parse::<f64>().is_ok() {
        return Kind::Float;
    }
    Kind::Text
}

fn combine(a: Kind, b: Kind) -> Kind {
    use Kind::*;
    match (a, b) {
        (Empty, x) | (x, Empty) => x,
        (x, y) if x == y => x,
        (Int(p), Int(q)) => Int(p || q),
        (Int(_), Float) | (Float, Int(_)) => Float,
        (FloatWord, Float | Int(_)) | (Float | Int(_), FloatWord) => Float,
        (Temporal(x), Temporal(y)) => {
            let rank = |t: DataType| match t {
                DataType::Date => 1,
                DataType::DateTime => 2,
                DataType::Timestamp => 3,
                DataType::NanoTimestamp => 4,
                DataType::Minute => 11,
                DataType::Second => 12,
                DataType::Time => 13,
                DataType::NanoTime => 14,
                _ => 100,
            };
            let (rx, ry) = (rank(x), rank(y));
            if (rx < 10) == (ry < 10) {
                Temporal(if rx >= ry { x } else { y })
            } else {
                Text
            }
        }
        // 8-digit numbers read as dates mixed with other integers are integers
        (Temporal(DataType::Date), Int(p)) | (Int(p), Temporal(DataType::Date)) => Int(p),
        _ => Text,
    }
}

/// Infer column types from sampled records (fields as bytes).
pub fn infer_types(sample: &[Vec<Vec<u8>>], ncols: usize) -> Vec<DataType> {
    let mut kinds = vec![Kind::Empty; ncols];
    let mut distinct: Vec<AHashSet<&[u8]>> = vec![AHashSet::new(); ncols];
    let mut nonempty = vec![0usize; ncols];
    for rec in sample {
        for (k, f) in rec.iter().enumerate().take(ncols) {
            let s = String::from_utf8_lossy(f);
            let kind = classify(&s);
            if kind != Kind::Empty {
                nonempty[k] += 1;
                if distinct[k].len() <= SAMPLE_RECORDS {
                    distinct[k].insert(f.as_slice());
                }
            }
            kinds[k] = combine(kinds[k], kind);
        }
    }
    kinds
        .iter()
        .enumerate()
        .map(|(k, kind)| match kind {
            Kind::Empty => DataType::String,
            Kind::Bool => DataType::Bool,
            Kind::Int(false) => DataType::Int,
            Kind::Int(true) => DataType::Long,
            Kind::Float => DataType::Double,
            Kind::Temporal(t) => *t,
            Kind::Text | Kind::FloatWord => {
                let n = nonempty[k];
                if n < 100 || distinct[k].len() * 2 <= n { DataType::Symbol } else { DataType::String }
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        assert_eq!(temporal_kind("2016.11.15"), Some(DataType::Date));
        assert_eq!(temporal_kind("2016-11-15 07:00:00"), Some(DataType::DateTime));
        assert_eq!(temporal_kind("2016-11-15T07:00:00.123"), Some(DataType::Timestamp));
        assert_eq!(temporal_kind("20070801"), Some(DataType::Date));
        assert_eq!(temporal_kind("9:30:00"), Some(DataType::Second));
        assert_eq!(temporal_kind("09:30:00.123"), Some(DataType::Time));
        assert_eq!(temporal_kind("111011"), Some(DataType::Date));
        assert_eq!(temporal_kind("300001"), None);
        assert_eq!(classify("NA"), Kind::Text);
        assert_eq!(classify("12.5"), Kind::Float);
        assert_eq!(classify("-3"), Kind::Int(false));
        assert_eq!(classify("000001"), Kind::Text);
        assert_eq!(classify("0"), Kind::Int(false));
        assert_eq!(classify("5000000000"), Kind::Int(true));
        assert_eq!(clean_name("1_test"), "c1_test");
        assert_eq!(clean_name("test-a!"), "test_a_");
        assert_eq!(clean_name("[test]"), "c_test_");
    }
}
