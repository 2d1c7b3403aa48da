/**
 * `--config` without a file: the well-known places MCP clients keep their configuration, for this
 * operating system and the current project. Only files that exist are returned; the CLI lists what
 * it found on stderr.
 *
 * | client          | project (current directory)  | user                                                        |
 * | --------------- | ---------------------------- | ----------------------------------------------------------- |
 * | Claude Code     | `.mcp.json`                  | `~/.claude.json`                                            |
 * | Cursor          | `.cursor/mcp.json`           | `~/.cursor/mcp.json`                                        |
 * | VS Code         | `.vscode/mcp.json`           | the profile's `mcp.json` (`Code/User/mcp.json` in the app data folder) |
 * | Windsurf        |                              | `~/.codeium/windsurf/mcp_config.json`                       |
 * | Claude Desktop  |                              | `claude_desktop_config.json` in the app data folder (`Claude/`) |
 *
 * The app data folder is `~/Library/Application Support` on macOS, `%APPDATA%` on Windows and
 * `$XDG_CONFIG_HOME` (default `~/.config`) elsewhere.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';

/** A place to look. */
export interface Location {
  readonly file: string;
  readonly client: string;
}

/** The folder applications keep their settings in, on `platform`. */
function appData(home: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string {
  if (platform === 'darwin') return join(home, 'Library', 'Application Support');
  if (platform === 'win32') return env.APPDATA ?? join(home, 'AppData', 'Roaming');
  const xdg = env.XDG_CONFIG_HOME;
  return xdg !== undefined && xdg.startsWith('/') ? xdg : join(home, '.config');
}

/** Every well-known location, project files first, whether or not it exists. */
export function wellKnownLocations(
  cwd: string,
  home: string,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): Location[] {
  const data = appData(home, env, platform);
  return [
    { file: join(cwd, '.mcp.json'), client: 'Claude Code (project)' },
    { file: join(cwd, '.cursor', 'mcp.json'), client: 'Cursor (project)' },
    { file: join(cwd, '.vscode', 'mcp.json'), client: 'VS Code (workspace)' },
    { file: join(home, '.claude.json'), client: 'Claude Code (user)' },
    { file: join(home, '.cursor', 'mcp.json'), client: 'Cursor (user)' },
    { file: join(data, 'Code', 'User', 'mcp.json'), client: 'VS Code (user)' },
    { file: join(home, '.codeium', 'windsurf', 'mcp_config.json'), client: 'Windsurf' },
    { file: join(data, 'Claude', 'claude_desktop_config.json'), client: 'Claude Desktop' },
  ];
}

/** The well-known locations that hold a file. */
export function foundLocations(
  cwd: string,
  home: string,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): Location[] {
  return wellKnownLocations(cwd, home, env, platform).filter((l) => {
    try {
      return statSync(l.file).isFile();
    } catch {
      return false;
    }
  });
}
