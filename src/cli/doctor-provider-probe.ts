/**
 * `north doctor`'s credential check of one provider: the provider is created
 * as a session would create it and asked to `probe` (a request that proves
 * the credentials and the endpoint and sends no prompt), within a time
 * limit, so a hanging token endpoint or metadata server cannot hang doctor.
 */
import type { ProviderInfo } from "../providers/catalogue";
import { claudeCloudSwitch, isSwitchOn } from "../providers/cloud-model-ids";
import { resolveEndpoint } from "../providers/models";
import type { Provider, ProviderAuth } from "../providers/types";

type Env = Record<string, string | undefined>;

/** Long enough for a cloud token exchange (SSO cache, metadata server) to finish. */
export const PROVIDER_PROBE_TIMEOUT_MS = 10_000;

/** Where a cloud provider's credentials come from, for the doctor line. */
export const CREDENTIAL_SOURCES: Readonly<Record<Exclude<ProviderAuth, "key">, string>> = {
    aws: "the AWS credential chain",
    google: "Google application default credentials",
    azure: "Microsoft Entra ID",
};

/** The Claude Code switch that turns this provider on, when it is set. */
export function switchedOnBy(provider: ProviderInfo, env: Env): string | undefined {
    const name = claudeCloudSwitch(provider.id);
    return name !== undefined && isSwitchOn(env[name]) ? name : undefined;
}

export type ProbeOutcome =
    | { kind: "checked"; ok: boolean; detail: string }
    /** The provider's module has no check (yet): the caller falls back to reachability. */
    | { kind: "unchecked" };

/**
 * Creates the provider from its catalogue entry and runs its probe. Never
 * throws: a bad setting, a provider that cannot be created, a probe that
 * throws or outlasts `timeoutMs` are failed outcomes.
 */
export async function probeProvider(
    provider: ProviderInfo,
    env: Env,
    timeoutMs = PROVIDER_PROBE_TIMEOUT_MS
): Promise<ProbeOutcome> {
    const resolved = resolveEndpoint(provider, env);
    if (!resolved.ok) return { kind: "checked", ok: false, detail: resolved.error };
    let created: Provider;
    try {
        // The providers' modules (and any cloud library) load only for doctor's check.
        const { createProvider } = await import("./engine-entry");
        created = await createProvider(resolved.endpoint);
    } catch (error) {
        return { kind: "checked", ok: false, detail: `cannot be set up: ${messageOf(error)}` };
    }
    if (!created.probe) return { kind: "unchecked" };
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<ProbeOutcome>((resolve) => {
        timer = setTimeout(() => {
            controller.abort();
            resolve({
                kind: "checked",
                ok: false,
                detail: `no answer in ${timeoutMs / 1000} s (credentials or endpoint hang; check the network, proxy and token endpoint)`,
            });
        }, timeoutMs);
    });
    const probed = created.probe(controller.signal).then(
        (result): ProbeOutcome => ({ kind: "checked", ok: result.ok, detail: result.detail }),
        (error: unknown): ProbeOutcome => ({
            kind: "checked",
            ok: false,
            detail: `check failed: ${messageOf(error)}`,
        })
    );
    try {
        // A probe that ignores the abort still loses the race.
        return await Promise.race([probed, expired]);
    } finally {
        clearTimeout(timer);
    }
}

function messageOf(error: unknown): string {
    return error instanceof Error ? error.message : String(error);
}
