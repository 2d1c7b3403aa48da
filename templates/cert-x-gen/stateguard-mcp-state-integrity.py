#!/usr/bin/env python3
# @id: stateguard-mcp-state-integrity
# @name: MCP handle binding and requestState integrity (stateguard)
# @author: stateguard
# @severity: high
# @description: ACTIVE check by stateguard: mints a handle as one identity and presents it as another, and tampers with, replays and re-targets the requestState of an input_required flow, each against controls that must hold, so a finding is a flaw shown and never a bare success
# @tags: mcp, ai, agent, stateless-core, handle-binding, requeststate, broken-object-level-authorization, state-tampering, behavioural, active, intrusive, cwe-639, cwe-565, stateguard
# @cwe: CWE-639, CWE-565
# @target_kinds: http, cli
# @references: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr, https://modelcontextprotocol.io/docs/tutorials/security/security_best_practices#state-handle-hijacking, https://cwe.mitre.org/data/definitions/639.html, https://cwe.mitre.org/data/definitions/565.html
# @confidence: 90
# @version: 1.0.0
"""
cert-x-gen template that runs the installed `stateguard` scanner in engine mode.

The engine runs this file with python3 and the CERT_X_GEN_* variables set. It
runs `stateguard scan --format cert-x-gen --quiet` (found on PATH, or at the
absolute path in STATEGUARD_BIN) with this process's environment, no shell and
no arguments taken from the target, and prints the document stateguard wrote:
{"findings": [...], "metadata": {...}} with metadata.status confirmed, refuted,
skipped or errored. stateguard reads the target from CERT_X_GEN_TARGET_HOST,
_PORT, _PROTOCOL and _KIND, and the identities and options from the CXG_MCP_*
variables (docs/cert-x-gen.md in the stateguard repository says which).

This file exits 0 whatever happens: the engine discards the output of a
template that exits non-zero, so every failure is an `errored` document.
ACTIVE: stateguard calls the server's tools as two identities; it leaves
destructive tools alone unless CXG_MCP_MRTR_INCLUDE_DESTRUCTIVE=1.
"""

import json
import os
import re
import shutil
import subprocess
import sys

# The scan's own deadline is 30 s by default; this only stops a scanner that hangs.
HARD_LIMIT_SECONDS = 600
# Most of stateguard's stderr passed on to the engine's log.
STDERR_MAX = 64 * 1024


def header_metadata():
    """The metadata this file's header declares, as the engine reads it."""
    meta = {}
    listed = {"tags", "cwe", "references"}
    try:
        with open(os.path.abspath(__file__), encoding="utf-8") as f:
            lines = [next(f, "") for _ in range(50)]
    except OSError:
        lines = []
    for line in lines:
        m = re.match(r"^#\s*@(\w+)\s*:\s*(.+?)\s*$", line)
        if m is None:
            continue
        key, value = m.group(1), m.group(2)
        if key in listed:
            meta[key] = [v.strip() for v in value.split(",") if v.strip()]
        elif key == "confidence":
            meta[key] = int(value)
        elif key in ("id", "name", "author", "severity", "description"):
            meta[key] = value
    return meta


def errored(detail):
    """An `errored` document: no findings, the reason on one line."""
    meta = header_metadata()
    meta["status"] = "errored"
    meta["detail"] = " ".join(str(detail).split())[:2000]
    return json.dumps({"findings": [], "metadata": meta}, indent=2)


def scanner():
    """The stateguard executable: STATEGUARD_BIN (an absolute path) or `stateguard` on PATH."""
    given = os.environ.get("STATEGUARD_BIN", "")
    if given:
        if not os.path.isabs(given) or not os.path.isfile(given):
            return None, "STATEGUARD_BIN must be the absolute path of the stateguard executable"
        return given, None
    found = shutil.which("stateguard")
    if found is None:
        return None, ("stateguard is not on the PATH: it is not on the npm registry; in a clone "
                      "of its repository run npm install && npm link, or set STATEGUARD_BIN to "
                      "the absolute path of its dist/cli/main.js")
    return found, None


def is_document(text):
    try:
        doc = json.loads(text)
    except ValueError:
        return False
    return (isinstance(doc, dict) and isinstance(doc.get("findings"), list)
            and isinstance(doc.get("metadata"), dict)
            and doc["metadata"].get("status") in ("confirmed", "refuted", "skipped", "errored"))


def run():
    exe, problem = scanner()
    if exe is None:
        return errored(problem)
    try:
        child = subprocess.Popen(
            [exe, "scan", "--format", "cert-x-gen", "--quiet"],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=dict(os.environ, CERT_X_GEN_MODE="engine"), shell=False)
    except OSError as exc:
        return errored("could not run %s: %s" % (exe, exc.strerror or exc))
    try:
        out, err = child.communicate(timeout=HARD_LIMIT_SECONDS)
    except subprocess.TimeoutExpired:
        # SIGTERM first: stateguard stops a stdio target's processes on its way out.
        child.terminate()
        try:
            out, err = child.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
            out, err = child.communicate()
        return errored("stateguard did not finish within %d s" % HARD_LIMIT_SECONDS)
    message = err.decode("utf-8", "replace")
    sys.stderr.write(message[:STDERR_MAX])
    text = out.decode("utf-8", "replace")
    if child.returncode == 0 and is_document(text):
        return text.rstrip("\n")
    last = [line for line in message.splitlines() if line.strip()][-1:]
    return errored("stateguard exited %s without a cert-x-gen document%s"
                   % (child.returncode, ": " + last[0] if last else ""))


if __name__ == "__main__":
    try:
        print(run())
    except Exception as exc:  # the engine must get a document, whatever broke
        print(errored("template failure: %s" % exc))
    sys.exit(0)
