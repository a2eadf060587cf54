//! Issue 12 ("real DolphinDB scripts run unchanged"), language side: `@testing` files run
//! their cases in one session after the whole file's comments are removed, errors raised
//! in a module name the module's file and line, `defs()` has the manual's columns.

use beluga_tests::{interpreter, registry, with_stack};

fn run_text(text: &'static str) -> Vec<(String, bool, String)> {
    with_stack(move || {
        beluga_stdlib::testing::run_file_text(registry(), "t.dos", None, text)
            .into_iter()
            .map(|c| (c.case, c.passed, c.message))
            .collect()
    })
}

#[test]
fn cases_of_one_file_share_a_session() {
    let r = run_text(
        "base = 5\n@testing: case = \"a\"\ndef dbl(x) { return x * 2 }\nv = dbl(base)\n\
         @testing: case = \"b\"\nassert 1, v == 10\nassert 2, dbl(v) == 20\n\
         @testing: case = \"c\", exception = 1\nundefinedName + 1\n\
         @testing: case = \"d\"\nassert 1, v + base == 15\n",
    );
    let names: Vec<&str> = r.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(names, ["a", "b", "c", "d"]);
    assert!(r.iter().all(|c| c.1), "{r:?}");
}

#[test]
fn a_block_comment_hides_the_cases_inside() {
    let r = run_text(
        "@testing: case = \"kept\"\nx = 1\n/*\n@testing: case = \"hidden\"\nassert 1, false\n\
         @testing: case = \"hidden2\"\nassert 1, false\n*/\n@testing: case = \"after\"\nassert 1, x == 1 // trailing\n",
    );
    let names: Vec<&str> = r.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(names, ["kept", "after"]);
    assert!(r.iter().all(|c| c.1), "{r:?}");
}

#[test]
fn syntax_error_and_failing_assert_cases_keep_their_meaning() {
    let r = run_text(
        "@testing: case = \"syn\", syntaxError = 1\nx = (1 +\n@testing: case = \"bad\"\nassert 1, 1 == 2\n\
         @testing: case = \"noexc\", exception = 1\ny = 1\n@testing: case = \"ok\"\nassert 1, \"a//b\" == \"a\" + \"//b\"\n",
    );
    let by: Vec<(&str, bool)> = r.iter().map(|c| (c.0.as_str(), c.1)).collect();
    assert_eq!(by, [("syn", true), ("bad", false), ("noexc", false), ("ok", true)]);
}

#[test]
fn comments_are_removed_but_strings_kept() {
    let s = beluga_stdlib::testing::strip_comments("a = \"x // y\" // c\nb = '/* z */' /* q\nr */ c");
    assert_eq!(s, "a = \"x // y\"     \nb = '/* z */'     \n     c");
}

#[test]
fn module_errors_name_the_module_file_and_line() {
    let dir = std::env::temp_dir().join(format!("beluga_lang_gaps_{}", std::process::id()));
    std::fs::create_dir_all(dir.join("m")).expect("mkdir");
    std::fs::write(
        dir.join("m").join("calc.dos"),
        "module m::calc\n\ndef ok(x) { return x + 1 }\n\ndef bad(x) {\n    y = x + 1\n    return y + noSuchVar\n}\n",
    )
    .expect("write module");
    let d2 = dir.clone();
    let err = with_stack(move || {
        let mut i = interpreter();
        i.module_dir = d2;
        i.run_source("use m::calc\nz = ok(1)\nw = bad(1)\n", None).err()
    })
    .expect("bad() raises");
    let loc = err.location.clone().expect("a module location");
    assert!(loc.contains("calc.dos:7:"), "{loc}");
    assert!(err.span.is_none());
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn defs_has_the_manual_columns_and_lists_user_functions() {
    let out = with_stack(|| {
        let mut i = interpreter();
        i.output = beluga_runtime::eval::Output::Buffer(String::new());
        i.run_source(
            "def myAdd(a, b = 2) { return a + b }\n\
             d = defs()\n\
             print(d.columnNames())\n\
             r = select * from defs(\"myA%\")\n\
             print(r.name[0], r.userDefined[0], r.minParamCount[0], r.maxParamCount[0], r.syntax[0])\n\
             s = exec syntax from defs() where name = \"myAdd\"\n\
             print(eval(parseExpr(\"myAdd\" + strReplace(strReplace(s[0], \"a\", \"40\"), \"b\", \"2\"))))\n\
             print(exec count(*) from defs(\"bit%\") where userDefined = false)\n",
            None,
        )
        .map_err(|e| e.message)?;
        Ok::<String, String>(i.take_output())
    })
    .expect("script runs");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "[\"name\",\"isCommand\",\"userDefined\",\"isView\",\"minParamCount\",\"maxParamCount\",\"syntax\"]");
    assert_eq!(&lines[1..6], ["myAdd", "true", "1", "2", "(a, b)"]);
    assert_eq!(lines[6], "42");
    assert!(lines[7].parse::<i64>().unwrap_or(0) >= 4, "{out}");
}

/// `print in(1, d)`: after a command-style call, a word operator followed at once by `(`
/// is the function of that name called (funcs/i/in.md), while `print in` alone is still a
/// variable named `in`; `stat(x)` and `toJson(x)` name the argument variable.
#[test]
fn print_of_a_word_operator_call_and_argument_names() {
    let out = with_stack(|| {
        let mut i = interpreter();
        i.run_repl_text(
            "x = dict(INT, DOUBLE)\nx[1, 2, 3] = [4.5, 6.6, 3.2]\nprint in(1..6, x)\nprint in(7, x)\n\
             v = 1 2 3\nprint toJson(v)\nprint stat(v)[`Name]\nprint toJson(1 2)",
        )
    });
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            "[true,true,true,false,false,false]",
            "false",
            r#"{"name":"v","form":"vector","type":"int","size":"3","value":[1,2,3]}"#,
            "v",
            r#"{"name":"","form":"vector","type":"int","size":"2","value":[1,2]}"#,
        ],
        "{out}"
    );
}
