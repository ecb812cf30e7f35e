//! Running a command of the manual: `rafle`, the C example program, `curl` against a `rafle
//! serve` of the test's own, and `echo … |` feeding one of them. No shell runs them: what the
//! manual may show is exactly what this file understands, and anything else is refused with a
//! message saying to mark the block.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long one command may take: a hang fails the test instead of stalling CI.
const LIMIT: Duration = Duration::from_secs(120);

/// A word of a command line, or one of the shell's operators.
#[derive(Clone, Debug, PartialEq)]
pub enum Token {
    Word(String),
    Op(String),
}

/// Splits a command line as a POSIX shell would for the commands the manual shows: single
/// and double quotes, backslashes, the operators `|`, `||`, `&&`, `;` and `>`, and a comment
/// from a `#` that starts a word.
pub fn tokens(line: &str) -> Result<Vec<Token>, String> {
    let mut out = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => out.extend(word.take().map(Token::Word)),
            '#' if word.is_none() => break,
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => w.push(c),
                        None => return Err(format!("unclosed ' in `{line}`")),
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') if matches!(chars.peek(), Some('"' | '\\' | '$' | '`')) => {
                            w.push(chars.next().expect("peeked"))
                        }
                        Some('$' | '`') => return Err(format!("expansion in `{line}`")),
                        Some(c) => w.push(c),
                        None => return Err(format!("unclosed \" in `{line}`")),
                    }
                }
            }
            '\\' => match chars.next() {
                Some(c) => word.get_or_insert_with(String::new).push(c),
                None => return Err(format!("a trailing backslash in `{line}`")),
            },
            '|' | '&' | ';' | '>' | '<' => {
                out.extend(word.take().map(Token::Word));
                let mut op = c.to_string();
                if (c == '|' || c == '&' || c == '>') && chars.peek() == Some(&c) {
                    op.push(chars.next().expect("peeked"));
                }
                out.push(Token::Op(op));
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    out.extend(word.map(Token::Word));
    Ok(out)
}

/// What a command printed: stdout and stderr merged in the order written, and its exit code.
pub struct Outcome {
    pub code: Option<i32>,
    pub output: String,
}

/// Runs the manual's commands with what they need, made once for the whole test.
pub struct Runner {
    pub rafle: PathBuf,
    /// The tables `rafle serve` answers from.
    pub tables: PathBuf,
    /// Where the C example is built.
    pub scratch: PathBuf,
    server: Option<Server>,
    probe_example: Option<PathBuf>,
}

impl Runner {
    pub fn new(rafle: PathBuf, tables: PathBuf, scratch: PathBuf) -> Self {
        Runner {
            rafle,
            tables,
            scratch,
            server: None,
            probe_example: None,
        }
    }

    /// Runs one `console` command in `cwd`; an error if the manual shows something this test
    /// cannot run.
    pub fn run(&mut self, line: &str, cwd: &Path) -> Result<Outcome, String> {
        let tokens = tokens(line)?;
        let (stdin, command) = match tokens.iter().position(|t| *t == Token::Op("|".into())) {
            None => (None, &tokens[..]),
            Some(bar) => (Some(echoed(&tokens[..bar])?), &tokens[bar + 1..]),
        };
        let words = words(command)
            .ok_or_else(|| format!("cannot run `{line}`: only `echo … | COMMAND` may pipe"))?;
        let (program, args) = words.split_first().ok_or("an empty command")?;
        match program.as_str() {
            "rafle" => run_process(Command::new(&self.rafle).args(args), cwd, stdin),
            "target/probe-example" => {
                let program = self.probe_example()?;
                run_process(Command::new(program).args(args), cwd, stdin)
            }
            "curl" if stdin.is_none() => self.curl(args),
            _ => Err(format!(
                "cannot run `{line}`: a console block may run rafle, target/probe-example, curl \
                 and `echo … |`; mark the block `<!-- docs-test: not run: REASON -->`"
            )),
        }
    }

    /// Checks a `rafle` command line of a shell block without running it: with `--help`
    /// added, clap reads every option and value before it, so an unknown option, a missing
    /// value or one that does not parse (a variant, a size, a number) exits 2.
    pub fn parses(&self, args: &[String], cwd: &Path) -> Result<(), String> {
        let out = run_process(
            Command::new(&self.rafle).args(args).arg("--help"),
            cwd,
            None,
        )?;
        if out.code == Some(0) {
            Ok(())
        } else {
            Err(format!("exit {:?}: {}", out.code, out.output.trim_end()))
        }
    }

    /// `examples/probe.c` built against the library cargo built for this test, as the manual
    /// builds it into `target/probe-example`.
    fn probe_example(&mut self) -> Result<PathBuf, String> {
        if let Some(program) = &self.probe_example {
            return Ok(program.clone());
        }
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let lib = exe.parent().ok_or("the test has no directory")?;
        let program = self.scratch.join("probe-example");
        let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
        let out = Command::new(&cc)
            .args(["-std=c99", "-Wall", "-I"])
            .arg(root.join("capi/include"))
            .arg(root.join("examples/probe.c"))
            .arg("-L")
            .arg(lib)
            .arg("-lrafle")
            .arg(format!("-Wl,-rpath,{}", lib.display()))
            .arg("-o")
            .arg(&program)
            .output()
            .map_err(|e| format!("cannot run the C compiler {cc:?}: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "{cc} failed on examples/probe.c:\n{}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        self.probe_example = Some(program.clone());
        Ok(program)
    }

    /// The part of curl the manual uses (`-s`, `-G`, `-d`, `--data-urlencode`, `-H`), as an
    /// HTTP/1.1 request to the test's server wherever the manual says `localhost:8080`.
    fn curl(&mut self, args: &[String]) -> Result<Outcome, String> {
        let (mut get, mut data, mut headers, mut url) = (false, Vec::new(), Vec::new(), None);
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            let mut value = || {
                args.next()
                    .cloned()
                    .ok_or(format!("curl {arg} needs a value"))
            };
            match arg.as_str() {
                "-s" | "--silent" => {}
                "-G" | "--get" | "-sG" | "-Gs" => get = true,
                "-d" | "--data" => data.push(value()?),
                "--data-urlencode" => {
                    let v = value()?;
                    data.push(match v.split_once('=') {
                        Some((name, content)) => format!("{name}={}", url_encode(content)),
                        None => url_encode(&v),
                    });
                }
                "-H" | "--header" => headers.push(value()?),
                a if a.starts_with('-') => return Err(format!("curl option {a} is not emulated")),
                a => url = Some(a.to_string()),
            }
        }
        let url = url.ok_or("curl without a URL")?;
        let url = url.strip_prefix("http://").unwrap_or(&url);
        let (host, mut target) = match url.find('/') {
            Some(at) => (&url[..at], url[at..].to_string()),
            None => (url, "/".to_string()),
        };
        if host != "localhost:8080" && host != "127.0.0.1:8080" {
            return Err(format!(
                "curl to {host}: the manual's server is localhost:8080"
            ));
        }
        let body = data.join("&");
        let method = if get || data.is_empty() {
            "GET"
        } else {
            "POST"
        };
        if get && !data.is_empty() {
            target.push(if target.contains('?') { '&' } else { '?' });
            target.push_str(&body);
        }
        if !headers
            .iter()
            .any(|h| h.to_ascii_lowercase().starts_with("content-type:"))
        {
            headers.push("Content-Type: application/x-www-form-urlencoded".into());
        }
        let body = if method == "POST" {
            body
        } else {
            String::new()
        };
        let addr = self.server()?;
        let output = http(addr, method, &target, &headers, &body)?;
        Ok(Outcome {
            code: Some(0),
            output,
        })
    }

    fn server(&mut self) -> Result<SocketAddr, String> {
        if self.server.is_none() {
            self.server = Some(Server::start(&self.rafle, &self.tables)?);
        }
        Ok(self.server.as_ref().expect("started").addr)
    }
}

/// The words of a command without operators, or `None` if it has any.
fn words(tokens: &[Token]) -> Option<Vec<String>> {
    tokens
        .iter()
        .map(|t| match t {
            Token::Word(w) => Some(w.clone()),
            Token::Op(_) => None,
        })
        .collect()
}

/// What `echo WORDS` writes.
fn echoed(tokens: &[Token]) -> Result<String, String> {
    match words(tokens).as_deref() {
        Some([echo, rest @ ..]) if echo == "echo" => Ok(format!("{}\n", rest.join(" "))),
        _ => Err("only `echo … | COMMAND` may pipe".to_string()),
    }
}

fn url_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Runs `command` in `cwd` with stdout and stderr on one file, so that the output reads in
/// the order it was written, as in a terminal.
pub fn run_process(
    command: &mut Command,
    cwd: &Path,
    stdin: Option<String>,
) -> Result<Outcome, String> {
    let capture = tempfile::tempfile().map_err(|e| e.to_string())?;
    let err = capture.try_clone().map_err(|e| e.to_string())?;
    let mut out = capture.try_clone().map_err(|e| e.to_string())?;
    // The figures the manual shows (a verify budget split per thread) are those of 2 threads.
    command
        .current_dir(cwd)
        .env("RAYON_NUM_THREADS", "2")
        .env_remove("RUST_BACKTRACE")
        // The pages' `data` is the session's, not a directory the user set for every command.
        .env_remove("RAFLE_DATA")
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::from(capture))
        .stderr(Stdio::from(err));
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot start {command:?}: {e}"))?;
    if let (Some(text), Some(mut pipe)) = (stdin, child.stdin.take()) {
        pipe.write_all(text.as_bytes()).map_err(|e| e.to_string())?;
    }
    let code =
        wait(&mut child, LIMIT).ok_or(format!("{command:?} did not finish within {LIMIT:?}"))?;
    let mut bytes = Vec::new();
    out.seek(SeekFrom::Start(0)).map_err(|e| e.to_string())?;
    out.read_to_end(&mut bytes).map_err(|e| e.to_string())?;
    let output = String::from_utf8_lossy(&bytes).into_owned();
    Ok(Outcome { code, output })
}

/// Waits for `child` up to `limit`; its exit code, or `None` once killed for taking longer.
fn wait(child: &mut Child, limit: Duration) -> Option<Option<i32>> {
    let start = Instant::now();
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status.code());
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// `rafle serve` on a free port, stopped (SIGTERM, by its pid) when dropped.
struct Server {
    child: Child,
    addr: SocketAddr,
}

impl Server {
    fn start(rafle: &Path, tables: &Path) -> Result<Server, String> {
        let mut child = Command::new(rafle)
            .arg("serve")
            .arg("--data")
            .arg(tables)
            .args(["--bind", "127.0.0.1:0", "--cache", "16M"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("rafle serve does not start: {e}"))?;
        let stderr = child.stderr.take().expect("stderr is piped");
        let (lines, received) = mpsc::channel();
        // Drains the log for as long as the server runs, so that it never blocks on it.
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = lines.send(line);
            }
        });
        let mut server = Server {
            child,
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
        };
        let mut log = Vec::new();
        while let Ok(line) = received.recv_timeout(Duration::from_secs(60)) {
            if let Some(rest) = line.strip_prefix("rafle serve: listening on http://") {
                server.addr = rest
                    .trim_end_matches('/')
                    .parse()
                    .map_err(|e| format!("{e}"))?;
                return Ok(server);
            }
            log.push(line);
        }
        Err(format!("rafle serve never listened: {log:?}"))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // SAFETY: kill(2) on our own child's pid, not yet waited for.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        if wait(&mut self.child, Duration::from_secs(15)).is_none() {
            eprintln!("rafle serve did not stop on SIGTERM within 15 s: killed");
        }
    }
}

/// One request on a new connection; the body of the answer, whatever its status (as `curl -s`
/// prints it).
fn http(
    addr: SocketAddr,
    method: &str,
    target: &str,
    headers: &[String],
    body: &str,
) -> Result<String, String> {
    let mut stream = TcpStream::connect(addr).map_err(|e| e.to_string())?;
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .map_err(|e| e.to_string())?;
    let mut head =
        format!("{method} {target} HTTP/1.1\r\nHost: localhost:8080\r\nConnection: close\r\n");
    for header in headers {
        head.push_str(&format!("{header}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    stream
        .write_all(head.as_bytes())
        .map_err(|e| e.to_string())?;
    stream
        .write_all(body.as_bytes())
        .map_err(|e| e.to_string())?;
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).map_err(|e| e.to_string())?;
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let (head, body) = answer
        .split_once("\r\n\r\n")
        .ok_or(format!("no HTTP answer: {answer:?}"))?;
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        return dechunk(body);
    }
    Ok(body.to_string())
}

fn dechunk(mut body: &str) -> Result<String, String> {
    let mut out = String::new();
    loop {
        let (size, rest) = body.split_once("\r\n").ok_or("a cut chunk")?;
        let size = usize::from_str_radix(size.trim(), 16).map_err(|e| e.to_string())?;
        if size == 0 {
            return Ok(out);
        }
        out.push_str(rest.get(..size).ok_or("a cut chunk")?);
        body = rest.get(size + 2..).ok_or("a cut chunk")?;
    }
}

/// Copies the regular files of `from` into `to`, directories included, recursively.
pub fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::io::copy(&mut File::open(entry.path())?, &mut File::create(&target)?)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &str) -> Token {
        Token::Word(s.to_string())
    }

    #[test]
    fn words_and_operators() {
        let found = tokens(r#"echo "a b" 'c|d' e\ f | rafle x>y # z"#).unwrap();
        let op = |s: &str| Token::Op(s.to_string());
        assert_eq!(
            found,
            vec![
                w("echo"),
                w("a b"),
                w("c|d"),
                w("e f"),
                op("|"),
                w("rafle"),
                w("x"),
                op(">"),
                w("y")
            ]
        );
        assert!(tokens("echo 'open").is_err());
        assert!(tokens("echo \"$HOME\"").is_err());
    }
}
