//! Tests of the data-manipulation families (containers*, order*, reshape*, table, hof*,
//! meta, system*): scripts run through the interpreter, exact printed output compared.

#[cfg(test)]
mod tests {
    fn session() -> beluga_runtime::Interpreter {
        let mut r = beluga_runtime::Registry::new();
        crate::register(&mut r);
        beluga_runtime::Interpreter::new(r)
    }

    fn run(src: &str) -> String {
        session().run_repl_text(src)
    }

    #[test]
    fn scratch() {
        if let Ok(path) = std::env::var("BELUGA_SCRATCH") {
            let src = std::fs::read_to_string(path).unwrap_or_default();
            println!("=====\n{}=====", run(&src));
        }
    }
}
