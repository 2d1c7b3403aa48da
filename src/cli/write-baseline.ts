/**
 * `--write-baseline <file>`: today's confirmed findings as accepted entries, so a team can adopt the
 * scanner on a server with known flaws and gate only on new ones. Each entry names the target
 * (`<probe-id>@<target>`): accepting a flaw on one server must not accept it on every server.
 */
import type { RunReport } from '../probe/types.js';

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
