// The generated gRPC code is committed (src/v1/, checked by tests/generated.rs); the build only
// records the code version.
fn main() {
    code_version();
}

/// Record the git commit for `wire::CODE_VERSION` (the manifest stores it with every result).
fn code_version() {
    let commit = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    // GIT_OPTIONAL_LOCKS=0: `git status` must not refresh .git/index, which this script watches
    // (otherwise every build would invalidate the next one).
    let dirty = std::process::Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=no"])
        .env("GIT_OPTIONAL_LOCKS", "0")
        .output()
        .ok()
        .map(|o| !o.stdout.is_empty())
        .unwrap_or(false);
    println!(
        "cargo:rustc-env=CAUSEWAY_GIT_COMMIT={commit}{}",
        if dirty { "-dirty" } else { "" }
    );
    // `git rev-parse --git-dir` also finds the git directory of a worktree (where .git is a
    // file); without git (a tarball), nothing is watched and the version says "unknown".
    let git_dir = std::process::Command::new("git")
        .args(["rev-parse", "--absolute-git-dir"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| std::path::PathBuf::from(s.trim()));
    if let Some(dir) = git_dir {
        for f in ["HEAD", "index"] {
            if dir.join(f).exists() {
                println!("cargo:rerun-if-changed={}", dir.join(f).display());
            }
        }
    }
}
