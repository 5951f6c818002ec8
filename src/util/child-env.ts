/**
 * The environment of the processes North starts (commands, hooks, MCP servers):
 * North's own, minus the credentials it uses to reach the models. A command the
 * model writes could otherwise print a key into the conversation or send it away.
 */

type Env = Record<string, string | undefined>;

/**
 * Credentials the provider SDKs read from the environment whatever the catalogue
 * says (the Anthropic SDK also sends `ANTHROPIC_AUTH_TOKEN` as a bearer token).
 */
export const PROVIDER_SECRET_ENV: readonly string[] = [
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "OPENAI_API_KEY",
];

/** The built-in names plus every configured `apiKeyEnv`, each once, sorted. */
export function secretEnvNames(apiKeyEnvs: Iterable<string | undefined>): readonly string[] {
    const names = new Set(PROVIDER_SECRET_ENV);
    for (const name of apiKeyEnvs) if (name) names.add(name);
    return [...names].sort();
}

/**
 * `base` without the `hidden` names (and without unset entries), then `explicit`
 * on top: an entry the user configured for this child on purpose (an MCP
 * server's `env`) is passed even when it names a hidden variable.
 */
export function childEnv(
    base: Env,
    hidden: readonly string[],
    explicit: Record<string, string> = {}
): Record<string, string> {
    const drop = new Set(hidden);
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(base)) {
        if (value !== undefined && !drop.has(name)) env[name] = value;
    }
    return Object.assign(env, explicit);
}
