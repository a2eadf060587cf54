//! Builtins: `stringFormat` (DolphinDB's typed %-placeholders), `decimalFormat` (Java
//! DecimalFormat-style patterns `0.00`, `#,###`, `0.##%`, `0.###E0`) and `format`
//! (decimalFormat for numbers, temporalFormat for temporal values).

use beluga_runtime::CallCtx;
use beluga_runtime::column::{Column, StrCol};
use beluga_runtime::eval::ops;
use beluga_runtime::fmt::{format_elem, format_elem_quoted};
use beluga_runtime::kernels::arith::as_native;
use beluga_runtime::kernels::cast::temporal_format_column;
use beluga_runtime::null::Native;
use beluga_runtime::registry::{f, fp, Builtin, Kind};
use beluga_runtime::{DataType, Error, Result, Value};

use crate::string::str_col;
use crate::util::{describe, str_arg};

// ---------------------------------------------------------------- stringFormat

#[derive(Default)]
struct Spec {
    alt: bool,
    plus: bool,
    left: bool,
    zero: bool,
    width: Option<usize>,
    prec: Option<usize>,
}

fn pad(out: &mut String, body: &str, spec: &Spec, numeric: bool) {
    let w = spec.width.unwrap_or(0);
    let n = body.chars().count();
    if n >= w {
        out.push_str(body);
        return;
    }
    let fill = w - n;
    if spec.left {
        out.push_str(body);
        out.extend(std::iter::repeat_n(' ', fill));
    } else if spec.zero && numeric {
        let (sign, digits) = match body.as_bytes().first() {
            Some(b'-') | Some(b'+') => body.split_at(1),
            _ => ("", body),
        };
        out.push_str(sign);
        out.extend(std::iter::repeat_n('0', fill));
        out.push_str(digits);
    } else {
        out.extend(std::iter::repeat_n(' ', fill));
        out.push_str(body);
    }
}

/// Text of one scalar argument for a typed placeholder.
fn placeholder(ty: char, v: &Value, spec: &Spec) -> Result<(String, bool)> {
    let bad = || Error::arg(format!("The argument for %{ty} in [stringFormat] has the wrong type: {}", describe(v)));
    if let Value::Tuple(items) = v {
        if ty != 'A' {
            return Err(bad());
        }
        let parts: Vec<String> = items
            .iter()
            .map(|x| match x {
                Value::Scalar(c) => format_elem_quoted(c, 0),
                other => describe(other),
            })
            .collect();
        return Ok((format!("({})", parts.join(",")), false));
    }
    let c = match v {
        Value::Scalar(c) => c.clone(),
        Value::Void => Column::nulls(DataType::Void, 1),
        _ => return Err(bad()),
    };
    let t = c.ty;
    let int = || c.i64_at(0);
    let sign = |s: String, neg: bool| if spec.plus && !neg { format!("+{s}") } else { s };
    Ok(match ty {
        'b' if t == DataType::Bool => (format_elem(&c, 0), false),
        'c' if t == DataType::Char => (c.i64_at(0).map(|x| ((x as u8) as char).to_string()).unwrap_or_default(), false),
        'h' | 'i' | 'l' if t.is_integral() => match int() {
            Some(x) => (sign(x.to_string(), x < 0), true),
            None => (String::new(), false),
        },
        'o' | 'x' | 'X' if t.is_integral() => match int() {
            Some(x) => {
                let s = match ty {
                    'o' => format!("{:o}", x),
                    'x' => format!("{:x}", x),
                    _ => format!("{:X}", x),
                };
                let pre = match (spec.alt, ty) {
                    (true, 'o') => "0",
                    (true, 'x') => "0x",
                    (true, _) => "0X",
                    _ => "",
                };
                (format!("{pre}{s}"), true)
            }
            None => (String::new(), false),
        },
        'f' | 'F' if t.is_numeric() => match c.f64_at(0) {
            Some(x) => {
                let p = spec.prec.unwrap_or(6);
                (sign(format!("{:.*}", p, x), x < 0.0), true)
            }
            None => (String::new(), false),
        },
        'd' | 'M' | 't' | 'm' | 's' | 'D' | 'T' | 'n' | 'N' if t.is_temporal() => (format_elem(&c, 0), false),
        'S' | 'W' if t.is_literal() => {
            let s = c.str_at(0).unwrap_or("");
            let s = match spec.prec {
                Some(p) => s.chars().take(p).collect(),
                None => s.to_string(),
            };
            (s, false)
        }
        'A' => (format_elem_quoted(&c, 0), false),
        _ => return Err(bad()),
    })
}

fn string_format(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let fmt = str_arg("stringFormat", &a[0], "format")?.to_string();
    let args = &a[1..];
    let mut next = 0usize;
    let mut take = || -> Result<&Value> {
        let v = args.get(next).ok_or_else(|| Error::arg("[stringFormat] has fewer arguments than placeholders"))?;
        next += 1;
        Ok(v)
    };
    let cs: Vec<char> = fmt.chars().collect();
    let mut out = String::with_capacity(fmt.len() + 16);
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        if c != '%' {
            out.push(c);
            i += 1;
            continue;
        }
        i += 1;
        if cs.get(i) == Some(&'%') {
            out.push('%');
            i += 1;
            continue;
        }
        let mut spec = Spec::default();
        while let Some(&fl) = cs.get(i) {
            match fl {
                '#' => spec.alt = true,
                '+' => spec.plus = true,
                '-' => spec.left = true,
                '0' => spec.zero = true,
                _ => break,
            }
            i += 1;
        }
        if cs.get(i) == Some(&'*') {
            spec.width = take()?.as_i64().map(|w| w.max(0) as usize);
            i += 1;
        } else {
            let s = i;
            while cs.get(i).is_some_and(|c| c.is_ascii_digit()) {
                i += 1;
            }
            if i > s {
                spec.width = cs[s..i].iter().collect::<String>().parse().ok();
            }
        }
        if cs.get(i) == Some(&'.') {
            i += 1;
            if cs.get(i) == Some(&'*') {
                spec.prec = take()?.as_i64().map(|p| p.max(0) as usize);
                i += 1;
            } else {
                let s = i;
                while cs.get(i).is_some_and(|c| c.is_ascii_digit()) {
                    i += 1;
                }
                spec.prec = Some(cs[s..i].iter().collect::<String>().parse().unwrap_or(0));
            }
        }
        let Some(&ty) = cs.get(i) else {
            return Err(Error::arg("[stringFormat]: the format ends inside a placeholder"));
        };
        i += 1;
        if spec.width.unwrap_or(0) > 1 << 20 || spec.prec.unwrap_or(0) > 1 << 10 {
            return Err(Error::arg("[stringFormat]: the field width or precision is too large"));
        }
        let v = take()?.clone();
        let (body, numeric) = placeholder(ty, &v, &spec)?;
        pad(&mut out, &body, &spec, numeric);
    }
    Ok(Value::string(&out))
}

// ---------------------------------------------------------------- decimalFormat

/// A compiled DecimalFormat pattern.
struct DecPattern {
    prefix: String,
    suffix: String,
    neg_prefix: Option<String>,
    neg_suffix: String,
    min_int: usize,
    grouping: usize,
    min_frac: usize,
    max_frac: usize,
    sci: Option<usize>,
    multiplier: f64,
}

fn parse_dec_pattern(p: &str) -> Result<DecPattern> {
    let (pos, neg) = match p.split_once(';') {
        Some((a, b)) => (a, Some(b)),
        None => (p, None),
    };
    let is_num = |c: char| matches!(c, '#' | '0' | ',' | '.');
    let start = pos.find(is_num).ok_or_else(|| Error::arg(format!("Invalid number format '{p}'")))?;
    let end = pos.rfind(|c: char| is_num(c) || c == 'E').map(|e| e + 1).unwrap_or(start);
    let (prefix, body, suffix) = (&pos[..start], &pos[start..end], &pos[end..]);
    let (mant, exp) = match body.split_once('E') {
        Some((m, e)) => (m, Some(e)),
        None => (body, None),
    };
    let (int_part, frac_part) = match mant.split_once('.') {
        Some((i, f)) => (i, f),
        None => (mant, ""),
    };
    let min_int = int_part.chars().filter(|&c| c == '0').count();
    let grouping = match int_part.rfind(',') {
        Some(k) => int_part[k + 1..].chars().filter(|&c| c == '#' || c == '0').count(),
        None => 0,
    };
    let min_frac = frac_part.chars().filter(|&c| c == '0').count();
    let max_frac = frac_part.chars().filter(|&c| c == '0' || c == '#').count();
    let sci = exp.map(|e| e.chars().filter(|&c| c == '0').count().max(1));
    let affix = format!("{prefix}{suffix}");
    let multiplier = if affix.contains('%') {
        100.0
    } else if affix.contains('\u{2030}') {
        1000.0
    } else {
        1.0
    };
    let (neg_prefix, neg_suffix) = match neg {
        Some(n) => {
            let s = n.find(is_num).unwrap_or(n.len());
            let e = n.rfind(|c: char| is_num(c) || c == 'E').map(|e| e + 1).unwrap_or(s);
            (Some(n[..s].to_string()), n[e.max(s)..].to_string())
        }
        None => (None, suffix.to_string()),
    };
    Ok(DecPattern {
        prefix: prefix.to_string(),
        suffix: suffix.to_string(),
        neg_prefix,
        neg_suffix,
        min_int,
        grouping,
        min_frac,
        max_frac,
        sci,
        multiplier,
    })
}

/// Digits of |x| with `max_frac` decimals, trailing zeros trimmed down to `min_frac`.
/// `x >= 0` with exactly `frac` decimals, rounded half up on its shortest decimal form
/// (DolphinDB: `decimalFormat(0.345, ".##")` is `.35`, though the binary value is below
/// 0.345).
fn round_half_up(x: f64, frac: usize) -> String {
    let s = format!("{x}");
    let (ip, fp) = s.split_once('.').unwrap_or((&s, ""));
    if fp.len() <= frac {
        return if frac == 0 { ip.to_string() } else { format!("{ip}.{fp:0<frac$}") };
    }
    let mut digits: Vec<u8> = ip.bytes().chain(fp.bytes().take(frac)).collect();
    if fp.as_bytes()[frac] >= b'5' {
        let mut k = digits.len();
        loop {
            if k == 0 {
                digits.insert(0, b'1');
                break;
            }
            k -= 1;
            if digits[k] == b'9' {
                digits[k] = b'0';
            } else {
                digits[k] += 1;
                break;
            }
        }
    }
    let cut = digits.len() - frac;
    let text = String::from_utf8_lossy(&digits).into_owned();
    if frac == 0 { text } else { format!("{}.{}", &text[..cut], &text[cut..]) }
}

fn fixed_digits(x: f64, min_int: usize, min_frac: usize, max_frac: usize, grouping: usize) -> String {
    let s = round_half_up(x, max_frac);
    let (ip, fp) = match s.split_once('.') {
        Some((a, b)) => (a.to_string(), b.to_string()),
        None => (s.clone(), String::new()),
    };
    let mut fp = fp;
    while fp.len() > min_frac && fp.ends_with('0') {
        fp.pop();
    }
    let mut ip = ip.trim_start_matches('0').to_string();
    while ip.len() < min_int {
        ip.insert(0, '0');
    }
    if grouping > 0 && ip.len() > grouping {
        let b = ip.as_bytes();
        let mut g = String::with_capacity(ip.len() + ip.len() / grouping);
        for (k, &c) in b.iter().enumerate() {
            if k > 0 && (b.len() - k) % grouping == 0 {
                g.push(',');
            }
            g.push(c as char);
        }
        ip = g;
    }
    if ip.is_empty() && fp.is_empty() {
        ip.push('0');
    }
    if fp.is_empty() { ip } else { format!("{ip}.{fp}") }
}

impl DecPattern {
    fn format(&self, x: f64) -> String {
        let v = x * self.multiplier;
        let neg = v < 0.0;
        let a = v.abs();
        let body = match self.sci {
            None => fixed_digits(a, self.min_int, self.min_frac, self.max_frac, self.grouping),
            Some(exp_digits) => {
                let int_digits = self.min_int.max(1) as i32;
                let (mut m, mut e) = if a == 0.0 { (0.0, 0) } else {
                    let e = a.log10().floor() as i32 - (int_digits - 1);
                    (a / 10f64.powi(e), e)
                };
                // rounding may carry into another digit
                let r = format!("{:.*}", self.max_frac, m).parse::<f64>().unwrap_or(m);
                if r >= 10f64.powi(int_digits) {
                    m = r / 10.0;
                    e += 1;
                }
                let mant = fixed_digits(m, self.min_int.max(1), self.min_frac, self.max_frac, 0);
                let es = format!("{:0w$}", e.unsigned_abs(), w = exp_digits);
                format!("{mant}E{}{es}", if e < 0 { "-" } else { "" })
            }
        };
        if neg && body.chars().any(|c| c.is_ascii_digit() && c != '0') {
            match &self.neg_prefix {
                Some(p) => format!("{p}{body}{}", self.neg_suffix),
                None => format!("-{}{body}{}", self.prefix, self.suffix),
            }
        } else {
            format!("{}{body}{}", self.prefix, self.suffix)
        }
    }
}

fn decimal_format_col(name: &str, c: &Column, pat: &DecPattern) -> Result<Column> {
    if !(c.ty.is_numeric() || c.ty == DataType::Void) {
        return Err(Error::unsupported(name, c.ty));
    }
    let v = as_native::<f64>(c);
    let mut out = StrCol::with_capacity(v.len(), v.len() * 8);
    for &x in v.iter() {
        if x.is_null() {
            out.push("");
        } else {
            out.push(&pat.format(x));
        }
    }
    Ok(str_col(out))
}

fn decimal_format(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let pat = parse_dec_pattern(str_arg("decimalFormat", &a[1], "format")?)?;
    ops::unary_col(&a[0], &|c: &Column| decimal_format_col("decimalFormat", c, &pat))
}

/// `format(X, format)`: temporal values use temporalFormat, numbers decimalFormat.
fn format(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let fmt = str_arg("format", &a[1], "format")?.to_string();
    let dec = parse_dec_pattern(&fmt).ok();
    ops::unary_col(&a[0], &|c: &Column| {
        if c.ty.is_temporal() {
            temporal_format_column(c, &fmt)
        } else if c.ty.is_literal() {
            Ok(c.clone())
        } else {
            match &dec {
                Some(p) => decimal_format_col("format", c, p),
                None => Err(Error::arg(format!("Invalid number format '{fmt}'"))),
            }
        }
    })
}

pub const DEFS: &[Builtin] = &[
    fp("decimalFormat", Kind::Elementwise, 2, 2, decimal_format, &["X", "format"]),
    fp("format", Kind::Elementwise, 2, 2, format, &["X", "format"]),
    f("stringFormat", Kind::System, 1, u8::MAX, string_format),
];

#[cfg(test)]
mod tests {
    use crate::string::run;

    #[test]
    fn string_format_placeholders() {
        assert_eq!(
            run("stringFormat(\"date: %d, time: %t\", 2022.12.01, 10:12:45.065)"),
            "date: 2022.12.01, time: 10:12:45.065"
        );
        assert_eq!(run("stringFormat(\"Students account for %i%% of our customers.\", 50)"), "Students account for 50% of our customers.");
        assert_eq!(run("stringFormat(\"%010.3f\", 7.596)"), "000007.596");
        assert_eq!(run("stringFormat(\"%10f\", 3.14159265)"), "  3.141593");
        assert_eq!(run("stringFormat(\"%-5W|\", \"ab\")"), "ab   |");
        assert_eq!(run("stringFormat(\"%#x\", 47)"), "0x2f");
    }

    #[test]
    fn decimal_format_patterns() {
        assert_eq!(run("decimalFormat(12.22557, \"00.00\")"), "12.23");
        assert_eq!(run("decimalFormat(8.695886, \"00.00\")"), "08.70");
        assert_eq!(run("decimalFormat(1719, \"#,###\")"), "1,719");
        assert_eq!(run("decimalFormat(707, \"#,###\")"), "707");
        assert_eq!(run("decimalFormat(0.1234, \"0.00%\")"), "12.34%");
        assert_eq!(run("decimalFormat(12345.678, \"0.###E0\")"), "1.235E4");
        assert_eq!(run("decimalFormat(-1.5, \"0.0\")"), "-1.5");
        assert_eq!(run("decimalFormat(0.5, \"#.##\")"), ".5");
        // half up on the decimal form: 0.345 is 0.34499999... in binary
        assert_eq!(run("decimalFormat(0.345, \".##\")"), ".35");
        assert_eq!(run("decimalFormat(9.995, \"0.00\")"), "10.00");
        assert_eq!(run("decimalFormat(0.125, \"#.##%\")"), "12.5%");
        assert_eq!(run("format(2018.01.02, \"MM/dd/yyyy\")"), "01/02/2018");
    }
}
