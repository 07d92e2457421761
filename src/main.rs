//! The `ultimo` binary: everything is in the library's [`ultimo::cli`].

fn main() -> std::process::ExitCode {
    ultimo::cli::main()
}
