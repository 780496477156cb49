//! The MCP handler for one seat: `initialize` with the rules `prime` gives as instructions,
//! the seat's tools, and each call run as its CLI verb on the blocking pool, so a verb that
//! waits (a lock, `wait`) never stalls the server. The handler keeps the seat and its tool
//! list, nothing that a write could make stale: each call loads the queue afresh.

use std::os::fd::OwnedFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    Implementation, InitializeResult, ListToolsResult, PaginatedRequestParams, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler};
use rustix::event::{EventfdFlags, eventfd};
use tokio_util::sync::CancellationToken;

use super::call::{self, Call};
use super::in_flight::Running;
use super::message::NumberTexts;
use super::numbers;
use super::paging;
use super::tools;
use super::verb;
use crate::engine::{self, Policy};
use crate::reply::Failure;
use crate::reply::Finished;

/// Cloned when the server begins again over the same stream (`mcp::serve`): the clones share
/// the waits and the verbs running.
#[derive(Clone)]
pub struct Server {
    seat: String,
    /// What each call may do: everything, or a remote seat's key's limits.
    policy: Policy,
    tools: Vec<Tool>,
    /// Fired when input ends, or to end the server: every wait still running stops and
    /// nothing more is read.
    closing: CancellationToken,
    /// Waits in flight: each holds a thread of the blocking pool, so they are capped.
    waits: Arc<AtomicUsize>,
    /// Every verb running on the blocking pool, which the server lets finish when it ends.
    running: Arc<Running>,
}

/// The most waits one server runs at once; another is refused until one ends.
const MAX_WAITS: usize = 8;

/// One wait's place among `MAX_WAITS`, given back when dropped.
struct WaitSlot(Arc<AtomicUsize>);

impl WaitSlot {
    fn take(waits: &Arc<AtomicUsize>) -> Result<WaitSlot, Failure> {
        if waits.fetch_add(1, Ordering::SeqCst) >= MAX_WAITS {
            waits.fetch_sub(1, Ordering::SeqCst);
            return Err(Failure::failed(format!(
                "{MAX_WAITS} waits are already running in this server; cancel one or let it end, then call again"
            )));
        }
        Ok(WaitSlot(waits.clone()))
    }
}

impl Drop for WaitSlot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Server {
    pub fn new(
        seat: &str,
        policy: Policy,
        closing: CancellationToken,
        running: Arc<Running>,
    ) -> Server {
        Server {
            policy,
            seat: seat.to_owned(),
            tools: tools::tools(seat),
            closing,
            waits: Arc::new(AtomicUsize::new(0)),
            running,
        }
    }

    /// Runs the call's verb off the runtime's thread; a wait also ends when `cancelled` fires
    /// or input ends.
    async fn run(&self, call: &Call, cancelled: &CancellationToken) -> Result<Finished, Failure> {
        let (request, policy) = (call.request.clone(), self.policy.clone());
        let entered = self.running.enter();
        if !call.waits {
            return tokio::task::spawn_blocking(move || {
                let _entered = entered;
                verb::run(request, &policy)
            })
            .await
            .map_err(|e| Failure::failed(format!("the verb did not finish: {e}")));
        }
        let _slot = WaitSlot::take(&self.waits)?;
        let stop = eventfd(0, EventfdFlags::CLOEXEC | EventfdFlags::NONBLOCK)
            .map(Arc::new)
            .map_err(|e| Failure::failed(format!("cannot make a wait stoppable: {e}")))?;
        let inner = stop.clone();
        let mut job = tokio::task::spawn_blocking(move || {
            let _entered = entered;
            engine::stoppable(inner, || verb::run(request, &policy))
        });
        let done = tokio::select! {
            done = &mut job => Some(done),
            () = cancelled.cancelled() => None,
            () = self.closing.cancelled() => None,
        };
        let done = match done {
            Some(done) => done,
            None => {
                fire(&stop);
                job.await
            }
        };
        done.map_err(|e| Failure::failed(format!("the wait did not finish: {e}")))
    }
}

/// Wakes every poll watching `stop`.
fn fire(stop: &OwnedFd) {
    // A full counter is already readable; nothing else can fail on an eventfd.
    let _ = rustix::io::write(stop, &1u64.to_ne_bytes());
}

/// The answer for a verb that ran: its document bounded, a tool error when it failed. Its
/// warnings go where the CLI's go, to stderr (an MCP client keeps the server's as its log).
fn answer(ran: &Finished, call: &Call) -> CallToolResult {
    for line in &ran.warnings {
        crate::command::output::warn(line);
    }
    let command = command_line(&call.argv);
    let shape = if ran.exit == 0 {
        &call.shape
    } else {
        &paging::Shape::whole()
    };
    match paging::fit(&ran.document, shape, &command) {
        Ok(doc) if ran.exit == 0 => CallToolResult::success(vec![ContentBlock::text(doc)]),
        Ok(doc) => CallToolResult::error(vec![ContentBlock::text(doc)]),
        Err(f) => refusal(&f),
    }
}

/// The command line that prints a call's document whole, as a shell runs it: `--json` among
/// the options (after `--` it would be a positional), each word a shell would split or
/// expand quoted.
fn command_line(argv: &[String]) -> String {
    let at = argv.iter().position(|w| w == "--").unwrap_or(argv.len());
    let json = String::from("--json");
    let words = argv[..at]
        .iter()
        .chain(std::iter::once(&json))
        .chain(&argv[at..]);
    let mut line = String::from("mosaic-queue");
    for word in words {
        line.push(' ');
        line.push_str(&quoted(word));
    }
    line
}

fn quoted(word: &str) -> String {
    let plain = |b: u8| b.is_ascii_alphanumeric() || b"-_=.,:/@%+".contains(&b);
    if !word.is_empty() && word.bytes().all(plain) {
        return word.to_owned();
    }
    format!("'{}'", word.replace('\'', "'\\''"))
}

/// A refusal the server makes itself, as the CLI's `--json` error document.
fn refusal(f: &Failure) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(json_text(&verb::error_document(
        f,
    )))])
}

fn json_text(doc: &str) -> String {
    super::json_text::minify(doc)
}

/// What `initialize` tells the client: the seat, how answers look, and the rules `prime` gives.
fn instructions(seat: &str) -> String {
    let mut text = format!(
        "The team's work queue, for seat {seat}: every tool acts as {seat}. Call orient first. Each answer is the CLI's --json document (minified, at most {} bytes: long arrays are paged); a refusal is a tool error carrying {{\"error\":{{exit,kind,message,next,retryable}}}}. A change's op is the CLI's --op.\nRules:\n",
        paging::MAX_ANSWER
    );
    for rule in engine::prime_rules(seat) {
        text.push_str("- ");
        text.push_str(rule);
        text.push('\n');
    }
    text
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let mut info = InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_instructions(instructions(&self.seat));
        info.server_info = Implementation::new("mosaic-queue", env!("CARGO_PKG_VERSION"));
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.clone()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        // Numbers first, from the text the client sent, as the command line reads them.
        if self.get_tool(&request.name).is_some()
            && let Err(f) = numbers::check(&args, context.extensions.get::<NumberTexts>())
        {
            return Ok(refusal(&f).into());
        }
        let call = match call::call(&self.seat, &request.name, args) {
            None => {
                return Err(ErrorData::invalid_params(
                    format!("no tool {:?}; tools/list names them", request.name),
                    None,
                ));
            }
            Some(Err(f)) => return Ok(refusal(&f).into()),
            Some(Ok(call)) => call,
        };
        let result = match self.run(&call, &context.ct).await {
            Ok(ran) => answer(&ran, &call),
            Err(f) => refusal(&f),
        };
        // A lock this process could not remove stays live while it runs and would hold off
        // every writer: the server stops reading, answers what is in flight and ends
        // (`serve`), so the lock is dead and `unlock` clears it.
        if engine::lock_left_behind() {
            self.closing.cancel();
        }
        Ok(result.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_named_runs_as_printed() {
        let argv = |words: &[&str]| words.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        assert_eq!(
            command_line(&argv(&["show", "--", "5"])),
            "mosaic-queue show --json -- 5"
        );
        assert_eq!(
            command_line(&argv(&[
                "wait",
                "--status=done",
                "--timeout=600",
                "--",
                "5"
            ])),
            "mosaic-queue wait --status=done --timeout=600 --json -- 5"
        );
        assert_eq!(
            command_line(&argv(&["next", "--explain", "--", "it's me"])),
            "mosaic-queue next --explain --json -- 'it'\\''s me'"
        );
        assert_eq!(command_line(&argv(&["list"])), "mosaic-queue list --json");
    }
}
