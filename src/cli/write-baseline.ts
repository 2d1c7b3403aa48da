/**
 * `--write-baseline <file>`: today's confirmed findings as accepted entries, so a team can adopt the
 * scanner on a server with known flaws and gate only on new ones. Each entry names the target
 * (`<probe-id>@<target>`): accepting a flaw on one server must not accept it on every server.
 */
import type { RunReport } from '../probe/model/report.js';

/** A server's name a baseline entry can hold (`<probe-id>@github`); see probe/baseline.ts. */
const SERVER_NAME = /^[A-Za-z0-9][\w.-]*$/;

/** The baseline file for `report`, written on `date`, and how many entries it holds. */
export function baselineText(report: RunReport, date: Date): { text: string; entries: number } {
  const ids = report.probes.filter((p) => p.verdict === 'confirmed').map((p) => p.id);
  const day = date.toISOString().slice(0, 10);
  // A target shown with a line break could not stay on one line; such a name is never a target.
  const target = report.target.display.replace(/[\r\n]/g, ' ');
  const lines = [
    `# stateguard baseline written ${day} for ${target}: ${ids.length} confirmed finding${ids.length === 1 ? '' : 's'} accepted`,
    ...ids.map((id) => `${id}@${target}`),
  ];
  return { text: `${lines.join('\n')}\n`, entries: ids.length };
}

/**
 * The baseline file for a `--config` scan: every server's confirmed findings, each entry limited
 * to its one server (by name, or its exact target), grouped under a comment naming the server and
 * where it is declared.
 */
export function combinedBaselineText(
  reports: readonly RunReport[],
  date: Date,
): { text: string; entries: number } {
  const day = date.toISOString().slice(0, 10);
  let entries = 0;
  const lines = [`# stateguard baseline written ${day} for ${reports.length} servers`];
  const names = reports.map((r) => r.server?.name);
  for (const report of reports) {
    const ids = report.probes.filter((p) => p.verdict === 'confirmed').map((p) => p.id);
    if (ids.length === 0) continue;
    const display = report.target.display.replace(/[\r\n]/g, ' ');
    // Each entry matches one server: by its name where the name is one no other server has (two
    // local servers may share a command line or a loopback host), else by its exact target.
    const name = report.server?.name;
    const target =
      name !== undefined && SERVER_NAME.test(name) && names.filter((n) => n === name).length === 1
        ? name
        : display;
    const s = report.server;
    const where =
      s === undefined ? '' : ` (${s.name}, ${s.file}:${s.line})`.replace(/[\r\n]/g, ' ');
    lines.push(`# ${display}${where}`, ...ids.map((id) => `${id}@${target}`));
    entries += ids.length;
  }
  return { text: `${lines.join('\n')}\n`, entries };
}
