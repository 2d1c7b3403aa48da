/**
 * What the CLI takes for an environment variable's name, wherever one is named (`--env`,
 * `--identity-env`, a configuration's placeholders, a registry entry's variables): a letter or `_`,
 * then letters, digits and `_`, as POSIX shells write them.
 */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
