/**
 * `stateguard scan --help`. Every flag `parseArgs` accepts is documented here, and the flag table in
 * docs/scanner.md lists the same flags (test/cli/help-table.test.ts holds both to that).
 */
import { PROBE_IDS } from '../probe/runner/probe-ids.js';
import { SCAN_DEFAULTS } from '../probe/runner/defaults.js';
import { DEFAULT_PRINCIPAL_META_KEY } from '../probe/target/session-options.js';
import { STDIO_CLOSE_GRACE_MS } from '../probe/target/stdio.js';
import { COMBINED_FORMATS, EVIDENCE_MODES, REPORT_FORMATS } from '../report/formats.js';
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY } from './config/select.js';

/** The help text; it documents every flag `parseArgs` accepts. */
export const SCAN_HELP = `Usage: stateguard scan (--http <url> | --stdio "<command line>" | --config [<file>] |
                       --registry <url> | --server-json <file|url>) [options]

Scans MCP 2026-07-28 servers for unbound handles and unprotected requestState, with two
identities (A and B), controls that must hold before any verdict, and the evidence of every call.

Target (exactly one kind):
  --http <url>                 a Streamable HTTP endpoint, e.g. http://127.0.0.1:3000/mcp
  --stdio "<command line>"     a command to spawn (split like a shell would, but run without one)
  --config <file>              every server an MCP client configuration declares (repeatable):
                               claude_desktop_config.json, .mcp.json, .cursor/mcp.json,
                               .vscode/mcp.json, mcp_config.json (Windsurf); one combined report.
                               With no file (last, or before another flag): the well-known
                               locations for this OS and project, listed on stderr.
                               \${VAR}, \${env:VAR}, \${VAR:-default} come from the environment,
                               \${input:id} from STATEGUARD_INPUT_<ID>; a server with a placeholder
                               left unresolved is not started. A stdio server gets its own env
                               over a minimal one (PATH, HOME, …), never the scanner's whole
                               environment. Formats: ${COMBINED_FORMATS.join(', ')}
  --server <name>              with --config: scan only this entry (repeatable)
  --concurrency <n>            with --config: servers scanned at once (default ${DEFAULT_CONCURRENCY}, at most
                               ${MAX_CONCURRENCY}); each keeps its own --deadline
  --registry <url>             every server an MCP registry lists (GET /v0.1/servers, page
                               after page), e.g. --registry https://registry.modelcontextprotocol.io;
                               one combined report with the counts scanned / not scanned (each
                               with its reason) / failed. Nothing runs unless allowed below; see
                               docs/registry.md
  --server-json <file|url>     one server.json, scanned the same way
  --run-packages               with --registry/--server-json: install and run npm packages with a
                               stdio transport (npx -y -- <name>@<version>, no shell) in the
                               minimal environment; other package types are not scanned
  --allow-remote <host>        with --registry/--server-json: connect to remotes on this host
                               (exact match, repeatable), e.g. --allow-remote mcp.example.com
  --values <file>              with --registry/--server-json: JSON values by server name, then by
                               input name (env variable, header, argument, URL variable), e.g.
                               --values ./values.json; the only place secrets come from, with
                               --env NAME. A registry's own value for a secret is ignored
  --include-deprecated         with --registry/--server-json: scan deprecated entries too
                               (deleted ones never)
  --registry-search <text>     with --registry: the list's search filter (name substring)
  --registry-updated-since <time>
                               with --registry: entries updated since this RFC 3339 time
  --registry-version <v>       with --registry: the list's version filter, e.g. latest
  --registry-page-size <n>     with --registry: entries per page (default 30, at most 100)
  --registry-max-pages <n>     with --registry: pages read at most (default 20)
  --registry-max-entries <n>   with --registry: entries read at most (default 500)

Identities (default: two random ones per run):
  --identity-a <secret>        identity A; or env STATEGUARD_IDENTITY_A (keeps it out of ps)
  --identity-b <secret>        identity B; or env STATEGUARD_IDENTITY_B
                               HTTP: sent as "Authorization: Bearer <secret>"
                               stdio: sent as params._meta[<key>]
                               with --config, per server: STATEGUARD_IDENTITY_A__<SERVER> (the
                               name upper-cased, _ for other characters) wins for that server;
                               an entry's "Authorization: Bearer <token>" header is A by default
  --principal-meta-key <key>   the stdio _meta key (default ${DEFAULT_PRINCIPAL_META_KEY})
  --identity-header "<Name>: <value>"
                               HTTP: send the identity in this header instead of a bearer
                               token; {identity} in the value is replaced, e.g.
                               --identity-header 'X-Api-Key: {identity}'
  --identity-env <NAME>        stdio: the server reads its identity from this environment
                               variable; A and B then run as two processes of the command
  --env <NAME>                 stdio: pass this variable of the scanner's environment to the
                               server (repeatable), e.g. --env API_TOKEN; its value is redacted
                               in reports. Nothing else of it passes: the server starts in a
                               minimal environment (PATH, HOME, the locale, …)
  --env-file <file>            stdio: NAME=value lines for the server (at most 1 MiB), e.g.
                               --env-file ./server.env; values are redacted in reports
  --header "<Name>: <value>"   HTTP: send this header on every request (repeatable), e.g.
                               --header 'X-Tenant: acme'; values are redacted in reports

Selection:
  --probe <id>                 run only this probe (repeatable); ids: ${PROBE_IDS.join(', ') || '(none registered)'}
  --skip-probe <id>            do not run this probe (repeatable), e.g. --skip-probe
                               handle/cross-principal for a single-user stdio server
  --plan                       print the call plan and call nothing: every tool, prompt and
                               resource template with its class (read, create, write,
                               outside, destroy, unknown), the evidence, and whether a scan
                               would call it; with --format json, as JSON
  --allow-tool <name>          also call this tool (repeatable), whatever its class, in the
                               scan's last pass and only on objects the scan created, e.g.
                               --allow-tool charge_card
  --include-destructive        also call every tool left alone by default (write, outside,
                               destroy, unknown: they change objects, send, pay, deploy, run
                               commands, fetch URLs or do what the scan cannot tell), in the
                               scan's last pass and only on objects the scan created; without
                               it or --allow-tool only read and create tools are called
  --allow-minted-in-risky      also let a value the server minted reach such a tool's command,
                               code, query, url or path parameter; off even with
                               --include-destructive

TLS (https only):
  --ca <file>                  also trust the CA certificates (PEM) in this file, e.g.
                               --ca ./internal-ca.pem
  --insecure                   do not verify the server's certificate (warns loudly: anyone
                               on the path can read the identities); test servers only,
                               e.g. --http https://127.0.0.1:8443/mcp --insecure

Connections:
  --http-connection <policy>   auto | fresh | reuse | adaptive (default auto): fresh opens a
                               connection per exchange, reuse keeps one alive, adaptive keeps
                               one alive until an answer stalls (a server writing headers and
                               body apart without TCP_NODELAY), then goes fresh; auto is fresh
                               on a loopback host and adaptive elsewhere

Limits (a number and a unit: 500ms, 30s, 2m, 1h; decimals such as 2.5s work):
  --timeout <duration>         per call (default ${SCAN_DEFAULTS.timeoutMs / 1000}s), e.g. --timeout 10s
  --deadline <duration>        whole scan (default ${SCAN_DEFAULTS.deadlineMs / 1000}s), e.g. --deadline 2m; the
                               scan ends within it plus ${STDIO_CLOSE_GRACE_MS / 1000}s to stop a stdio target's
                               processes
  --serial                     run the probes one after another in registry order, as
                               before they ran side by side (for debugging; verdicts are
                               the same, the scan is slower)
  --startup-timeout <duration> stdio: how long the child may take to give its first answer
                               (default ${SCAN_DEFAULTS.startupTimeoutMs / 1000}s; within the deadline)
  --max-answer-bytes <n>       largest answer read (default ${SCAN_DEFAULTS.maxAnswerBytes})
  --expiry-wait <duration>     state/expiry: the longest a state should live (at least what the
                               server promises; the seeds' rule is 600s), e.g. --expiry-wait 10m.
                               The probe waits that long and sends a state back; the wait
                               extends --deadline by as much. Without it, state/expiry is skipped

Peers:
  --peer <url>                 state/cross-instance: another HTTP endpoint of the same
                               deployment; a flow and a handle hop from the target to it
  --peer-stdio "<command line>"
                               state/cross-instance: a second process of the same server
                               (with --stdio). Without a peer, state/cross-instance is skipped

Output:
  --format <format>            ${REPORT_FORMATS.join(' | ')} (default text)
                               text: one line per probe, controls and evidence beneath
                               json: the canonical report (schemaVersion 1), all evidence
                               sarif: SARIF 2.1.0; confirmed → kind fail (level from severity),
                                 errored → kind open + a tool-execution notification
                               junit: one testcase per probe; confirmed → failure,
                                 errored → error, skipped → skipped, refuted passes
                               markdown: a verdict table and each confirmed finding with its
                                 evidence, for a pull-request comment; the target's text inert
                               html: one self-contained page (no script, nothing loaded): the
                                 verdict table, each probe's controls and its exchanges drawn
                                 as a sequence between A, B and the server, the decisive one
                                 highlighted, raw JSON folded; e.g. --format html --output
                                 stateguard.html
                               cert-x-gen: the {"findings", "metadata"} document of a cert-x-gen
                                 template; with CERT_X_GEN_MODE=engine the target comes from
                                 CERT_X_GEN_TARGET_* and CXG_MCP_* (docs/cert-x-gen.md), exit 0
  --output <file>              write the report to a file (the summary line then goes to stderr)
  --baseline <file>            accepted findings, one a line: <probe-id> (any target) or
                               <probe-id>@<target> (the report's target, e.g. stdio:node
                               server.js, compared with host case, default ports and any
                               loopback port set aside; or a --config server's name);
                               # comments. A confirmed result an entry accepts stays
                               confirmed, marked baselined, and does not fail the run; an
                               entry whose probe is now refuted is stale and fails the run
                               (exit 1); one whose target matched nothing is reported
  --strict-baseline            with --baseline: an entry whose target matched nothing fails
                               the run (exit 1) instead of a warning
  --write-baseline <file>      write this run's confirmed findings to <file> as accepted
                               entries (<probe-id>@<target>), under a comment naming the date
                               and target, e.g. --write-baseline .stateguard-baseline
  --allow-undecided            exit as the other verdicts say when no probe decided anything
                               (each skipped or errored, or the target unreachable), or when
                               a probe is undecided (its flow or consumer left alone by the
                               call plan); without it such a run exits 4 or 5, so a gate
                               cannot pass on a scan that proved nothing or did not try
  --evidence <mode>            text, sarif, junit, html: ${EVIDENCE_MODES.join(' | ')} (default summary)
  --all                        sarif: also emit refuted (kind pass) and skipped (kind
                               notApplicable) results; off by default, because some consumers
                               ignore kind and would show every result as a finding
  --sarif-location <path>[:<line>]
                               sarif: the file (inside the repository: GITHUB_WORKSPACE, else
                               the working directory) and line every result points at, e.g.
                               --sarif-location deploy/mcp.yaml:12; without it a result points
                               at .stateguard/<target>-<hash>, a stable placeholder path
  --quiet                      no progress on stderr
  -h, --help                   this help

Verdicts (every one carries the exchanges that back it, tokens redacted):
  confirmed   the flaw was shown (A's canary or principal reaching B, a changed state honoured
              while a random one is refused) and every control held; where a control showed no
              validation at all, only the flaw's own marker confirms
  refuted     the property held, and every control held
  skipped     the surface is legitimately absent (no handle minted and consumed, no
              input_required, a pre-2026-07-28 server); the precondition is named
  errored     a control failed, or a call drew no decision (timeout, 5xx, empty or HTML body,
              dropped connection, unrunnable command, deadline); never read as a refusal

Exit codes: 0 something decided, nothing confirmed or errored · 1 something confirmed (and
            not baselined), or a stale baseline entry · 2 usage error · 3 something errored,
            something else decided, nothing confirmed · 4 nothing decided: no probe confirmed
            or refuted anything (the target unreachable, each probe skipped or errored), unless
            --allow-undecided · 5 undecided: a probe skipped whose surface the call plan left
            alone, or whose tools each answered -32603 Internal error (the report and stderr
            name what would decide it, e.g. --allow-tool refund_order), unless
            --allow-undecided; always 0 in cert-x-gen engine mode (the verdict is
            metadata.status)
            With --config, over all servers: 1 if any server has 1; else 4 if on any server
            nothing was decided (or it was not started, or nothing was scanned); else 5 if any
            has an undecided probe; else 3 if any errored; an SSE-only entry does not count
`;
