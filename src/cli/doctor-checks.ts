/**
 * The checks behind `north doctor`. Each returns lines of one status and a
 * short reason; none prints a key's value. A key goes only where the
 * provider would send it (its credential check); the reachability probe
 * never sends one.
 */
import { spawn, spawnSync } from "node:child_process";
import http from "node:http";
import https from "node:https";
import { join } from "node:path";
import type { ProviderInfo } from "../providers/catalogue";
import type { ModelCatalogue } from "../providers/models";
import { proxiedRequest, proxyFor } from "../providers/proxy";
import { configDir, dataDir, logFilePath } from "../storage/paths";
import {
    type LayerKind,
    PROJECT_LAYER_FILES,
    parseLayer,
    userConfigPath,
} from "../storage/settings/load";
import type { SettingsKey } from "../storage/settings/schema";
import { type TrustStore, readProjectConfig } from "../storage/trust";
import { findRipgrep } from "../tools/search-ripgrep";
import type { LspServerStatus } from "../tools/lsp/types";
import { stateText } from "../commands/language-servers";
import { describeProjectConfig, summarizeInventory } from "./project-trust";
import { readRegularTextSync } from "../util/read-regular-file";
import { claudeCloudSwitch } from "../providers/cloud-model-ids";
import { CREDENTIAL_SOURCES, probeProvider, switchedOnBy } from "./doctor-provider-probe";

type Env = Record<string, string | undefined>;

/** `info`: a fact that is no problem (a language server for a language not installed here). */
export type CheckStatus = "ok" | "info" | "warn" | "fail";

export interface DoctorCheck {
    status: CheckStatus;
    label: string;
    detail: string;
}

const ok = (label: string, detail: string): DoctorCheck => ({ status: "ok", label, detail });
const info = (label: string, detail: string): DoctorCheck => ({ status: "info", label, detail });
const warn = (label: string, detail: string): DoctorCheck => ({ status: "warn", label, detail });
const fail = (label: string, detail: string): DoctorCheck => ({ status: "fail", label, detail });

export const MIN_NODE_MAJOR = 20;
export const PROBE_TIMEOUT_MS = 3000;

/** Where the built-in providers' SDKs go when no base URL is configured. */
const DEFAULT_BASE_URLS: Record<string, string> = {
    anthropic: "https://api.anthropic.com",
    openai: "https://api.openai.com/v1",
};

export function checkNode(version: string): DoctorCheck {
    const major = Number(/^v?(\d+)/.exec(version)?.[1] ?? 0);
    return major >= MIN_NODE_MAJOR
        ? ok("node", `${version}`)
        : fail("node", `${version}: North needs Node ${MIN_NODE_MAJOR} or later`);
}

function readOptional(path: string): { text?: string; error?: string } {
    try {
        return { text: readRegularTextSync(path) };
    } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "ENOENT" || code === "ENOTDIR") return {};
        return { error: `cannot read ${path}: ${(error as Error).message}` };
    }
}

/**
 * Every settings file North reads, validated as the loader does: a file that
 * is not valid JSON or sets a bad value fails, an unknown key warns. Project
 * files are only parsed here, so checking them runs nothing.
 */
export function checkConfigFiles(env: Env, repoRoot: string): DoctorCheck[] {
    const files: Array<{ path: string; kind: LayerKind; keys?: readonly SettingsKey[] }> = [
        { path: join(configDir(env), "settings.json"), kind: "user" },
        { path: userConfigPath(env), kind: "user" },
        ...PROJECT_LAYER_FILES.map((f) => ({ ...f, path: join(repoRoot, f.file) })),
    ];
    const checks: DoctorCheck[] = [];
    for (const { path, kind, keys } of files) {
        const { text, error } = readOptional(path);
        if (error !== undefined) checks.push(fail("config", error));
        if (text === undefined) continue;
        const parsed = parseLayer(text, path, kind, keys);
        for (const message of parsed.errors) checks.push(fail("config", message));
        for (const message of parsed.warnings) checks.push(warn("config", message));
        if (parsed.errors.length === 0 && parsed.warnings.length === 0)
            checks.push(ok("config", `${path} is valid`));
    }
    const mcpPath = join(repoRoot, ".mcp.json");
    const mcp = readOptional(mcpPath);
    if (mcp.error !== undefined) checks.push(fail("config", mcp.error));
    if (mcp.text !== undefined) {
        try {
            JSON.parse(mcp.text);
            checks.push(ok("config", `${mcpPath} is valid JSON`));
        } catch (error) {
            checks.push(
                fail("config", `${mcpPath} is not valid JSON: ${(error as Error).message}`)
            );
        }
    }
    if (checks.length === 0) checks.push(ok("config", "no settings files; defaults apply"));
    return checks;
}

export type ProbeResult = { ok: true; status: number } | { ok: false; error: string };

/**
 * One HEAD request without credentials, through the proxy North's providers
 * would use: any HTTP answer means the server is reachable.
 */
export function probeUrl(url: URL, env: Env, timeoutMs = PROBE_TIMEOUT_MS): Promise<ProbeResult> {
    const proxy = proxyFor(url, env);
    if (!proxy.ok) return Promise.resolve({ ok: false, error: proxy.error });
    const via = proxy.proxy
        ? proxiedRequest(url, proxy.proxy, {})
        : { transport: url.protocol === "https:" ? https : http, url, options: {} };
    return new Promise((resolve) => {
        const req = via.transport.request(
            via.url,
            { ...via.options, method: "HEAD", timeout: timeoutMs },
            (res) => {
                res.resume();
                resolve({ ok: true, status: res.statusCode ?? 0 });
            }
        );
        req.on("timeout", () => {
            req.destroy();
            resolve({ ok: false, error: `no answer in ${timeoutMs / 1000} s` });
        });
        req.on("error", (error: NodeJS.ErrnoException) =>
            resolve({ ok: false, error: error.code ?? error.message })
        );
        req.end();
    });
}

function baseUrlOf(provider: ProviderInfo, env: Env): string | undefined {
    return (
        (provider.baseUrlEnv && env[provider.baseUrlEnv]) ||
        provider.baseUrl ||
        DEFAULT_BASE_URLS[provider.id]
    );
}

async function reachability(provider: ProviderInfo, env: Env): Promise<DoctorCheck> {
    const label = `${provider.id} url`;
    const raw = baseUrlOf(provider, env);
    if (raw === undefined) return fail(label, "no base URL configured");
    let url: URL;
    try {
        url = new URL(raw);
    } catch {
        return fail(label, `${raw} is not a valid URL (it needs http:// or https://)`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:")
        return fail(label, `${raw} is not an http:// or https:// URL`);
    const probe = await probeUrl(url, env);
    const proxy = proxyFor(url, env);
    const via = proxy.ok && proxy.proxy ? ` via ${proxy.variable}` : "";
    return probe.ok
        ? ok(label, `${raw} reachable${via} (HTTP ${probe.status})`)
        : fail(label, `${raw} unreachable${via}: ${probe.error}`);
}

/** Which proxy variable the provider's base URL goes through, when one does and the URL is known. */
function proxyNote(provider: ProviderInfo, env: Env): string {
    const raw = baseUrlOf(provider, env);
    if (raw === undefined || !URL.canParse(raw)) return "";
    const proxy = proxyFor(new URL(raw), env);
    return proxy.ok && proxy.proxy ? ` via ${proxy.variable}` : "";
}

/** The probe's line, or, for a provider with no check, its base URL's reachability. */
async function credentialCheck(
    provider: ProviderInfo,
    env: Env,
    timeoutMs: number | undefined
): Promise<DoctorCheck[]> {
    const label = `${provider.id} api`;
    const outcome = await probeProvider(provider, env, timeoutMs);
    if (outcome.kind === "checked") {
        const detail = `${outcome.detail}${proxyNote(provider, env)}`;
        return [outcome.ok ? ok(label, detail) : fail(label, detail)];
    }
    return [info(label, "no check for this provider"), await reachability(provider, env)];
}

/** Why a cloud provider counts as in use, or undefined when it does not. */
function inUseBecause(
    provider: ProviderInfo,
    configured: ReadonlySet<string>,
    inUse: string | undefined,
    env: Env
): string | undefined {
    if (configured.has(provider.id)) return "configured";
    if (provider.id === inUse) return "the selected model's provider";
    const variable = switchedOnBy(provider, env);
    return variable ? `${variable} is set` : undefined;
}

/**
 * Each provider's credentials and endpoint. A key provider is in use when
 * the user configured it or North's default model needs it: then a missing
 * key fails, otherwise it only warns. A cloud provider (credentials from the
 * cloud's own chain) is checked when configured, selected or switched on
 * (CLAUDE_CODE_USE_*). Every provider with usable credentials is created and
 * probed in parallel (`Provider.probe`: no prompt is sent), each within a
 * time limit.
 */
export async function checkProviders(
    catalogue: ModelCatalogue,
    configured: ReadonlySet<string>,
    inUse: string | undefined,
    env: Env,
    options: { timeoutMs?: number } = {}
): Promise<DoctorCheck[]> {
    const rows = [...catalogue.providers.values()].map(async (provider) => {
        const label = provider.id;
        const auth = provider.auth ?? "key";
        if (auth !== "key") {
            const source = CREDENTIAL_SOURCES[auth];
            const because = inUseBecause(provider, configured, inUse, env);
            if (because === undefined) {
                const variable = claudeCloudSwitch(provider.id);
                const how = variable
                    ? `configure providers.${provider.id} or set ${variable}=1`
                    : `configure providers.${provider.id}`;
                return [info(label, `not in use (${how}); credentials from ${source}`)];
            }
            return [
                ok(label, `${because}; credentials from ${source}`),
                ...(await credentialCheck(provider, env, options.timeoutMs)),
            ];
        }
        const needed =
            configured.has(provider.id) ||
            provider.id === inUse ||
            switchedOnBy(provider, env) !== undefined;
        let key: DoctorCheck;
        if (!provider.apiKeyEnv) key = ok(label, "no key variable needed");
        else if (env[provider.apiKeyEnv]) key = ok(label, `${provider.apiKeyEnv} is set`);
        // Without its key the provider cannot be used, so it is not contacted either.
        else if (needed) return [fail(label, `${provider.apiKeyEnv} is not set`)];
        else
            return [
                warn(
                    label,
                    `${provider.apiKeyEnv} is not set; ${provider.display} models unavailable`
                ),
            ];
        return [key, ...(await credentialCheck(provider, env, options.timeoutMs))];
    });
    return (await Promise.all(rows)).flat();
}

function versionOf(command: string, env: Env): string | undefined {
    const run = spawnSync(command, ["--version"], {
        env,
        encoding: "utf8",
        timeout: PROBE_TIMEOUT_MS,
    });
    if (run.error || run.status !== 0) return undefined;
    return run.stdout.split("\n")[0]?.trim() || undefined;
}

/** `rg` and `git`: North works without them, more slowly (search) or with less (checkpoints). */
export async function checkTools(env: Env): Promise<DoctorCheck[]> {
    const rg = await findRipgrep(env.PATH ?? "");
    const rgVersion = rg ? versionOf(rg, env) : undefined;
    const gitVersion = versionOf("git", env);
    return [
        rg && rgVersion
            ? ok("rg", `${rgVersion} (${rg})`)
            : warn("rg", "ripgrep not found on PATH; search falls back to a slower built-in scan"),
        gitVersion
            ? ok("git", gitVersion)
            : warn("git", "git not found on PATH; file lists fall back to a directory walk"),
    ];
}

export interface TrustState {
    check: DoctorCheck;
    trusted: boolean;
}

export function checkTrust(repoRoot: string, store: TrustStore): TrustState {
    const snapshot = readProjectConfig(repoRoot);
    const inventory = describeProjectConfig(repoRoot, snapshot);
    if (snapshot.fingerprint === null || inventory.items.length === 0)
        return {
            trusted: true,
            check: ok("trust", `${repoRoot}: no project hooks, MCP servers or approvals`),
        };
    if (store.isTrusted(repoRoot, snapshot.fingerprint))
        return { trusted: true, check: ok("trust", `${repoRoot} is trusted`) };
    return {
        trusted: false,
        check: warn(
            "trust",
            `${repoRoot} is not trusted, so these stay off: ${summarizeInventory(inventory)} (the chat asks; print mode: --trust)`
        ),
    };
}

export function checkPaths(env: Env): DoctorCheck[] {
    return [
        ok("config dir", configDir(env)),
        ok("data", dataDir(env)),
        ok("log", logFilePath(env)),
    ];
}

/**
 * Each language server as the session would see it, none started: found
 * (and where), not found (and how to install it), or turned off. In an
 * untrusted project a found one is only listed: servers run project code.
 */
export function checkLanguageServers(
    servers: readonly LspServerStatus[],
    trusted: boolean
): DoctorCheck[] {
    return servers.map((server) => {
        const label = "lsp";
        const name = server.name;
        if (server.state === "available") {
            const found = `${name}: found: ${server.command} (${server.origin})`;
            return trusted
                ? ok(label, found)
                : info(label, `${found}; not started: servers start only in a trusted project`);
        }
        // A server the user configured should be there; a built-in one only where its language is used.
        if (server.state === "missing" && server.origin !== "built-in") {
            return warn(label, `${name}: ${stateText(server)}`);
        }
        return info(label, `${name}: ${stateText(server)}`);
    });
}

/** How long `north doctor` waits for `north acp` to answer `initialize`: it starts no model. */
export const ACP_PROBE_TIMEOUT_MS = 5000;
/** Enough of an offending stdout line to recognise it. */
const ACP_LINE_SHOWN = 80;
/** An initialize answer is a few hundred bytes; a line this long without its end is something else. */
const ACP_UNENDED_LINE_BYTES = 1024 * 1024;

function clipLine(line: string): string {
    const flat = JSON.stringify(line);
    return flat.length > ACP_LINE_SHOWN ? `${flat.slice(0, ACP_LINE_SHOWN)}…"` : flat;
}

/** Why a stdout line breaks an editor's ACP client, or null when it is a JSON-RPC message. */
function notJsonRpc(line: string): string | null {
    if (line.trim() === "") return "is blank";
    let message: unknown;
    try {
        message = JSON.parse(line);
    } catch {
        return "is not JSON";
    }
    const isRpc =
        typeof message === "object" &&
        message !== null &&
        !Array.isArray(message) &&
        (message as { jsonrpc?: unknown }).jsonrpc === "2.0";
    return isRpc ? null : "is JSON but not a JSON-RPC message";
}

/**
 * Whether `north acp`, started as an editor starts it (same environment, so
 * NODE_OPTIONS preloads and wrappers run too), keeps stdout for the protocol:
 * it is sent `initialize` and every stdout line up to the answer must be a
 * JSON-RPC message. Anything else printed there (a preload's banner, a
 * wrapper's echo) breaks the editor's connection. Killed once answered, or
 * after `timeoutMs`.
 */
export function checkAcpStdout(
    command: string,
    args: readonly string[],
    options: { env: Env; cwd: string; timeoutMs?: number }
): Promise<DoctorCheck> {
    const label = "acp stdout";
    const timeoutMs = options.timeoutMs ?? ACP_PROBE_TIMEOUT_MS;
    const started = performance.now();
    return new Promise((resolve) => {
        const child = spawn(command, [...args], {
            cwd: options.cwd,
            env: options.env,
            stdio: ["pipe", "pipe", "pipe"],
        });
        let settled = false;
        let pending = "";
        let lineNumber = 0;
        let stderrTail = "";
        const finish = (check: DoctorCheck) => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            child.stdin.destroy();
            child.kill("SIGKILL");
            resolve(check);
        };
        const timer = setTimeout(
            () =>
                finish(
                    fail(
                        label,
                        `\`north acp\` did not answer initialize within ${timeoutMs / 1000} s`
                    )
                ),
            timeoutMs
        );
        const onLine = (line: string) => {
            lineNumber++;
            const problem = notJsonRpc(line);
            if (problem !== null) {
                finish(
                    fail(
                        label,
                        `stdout line ${lineNumber} ${problem}: ${clipLine(line)}; editors read only protocol messages there (check NODE_OPTIONS, wrapper scripts, shell profiles)`
                    )
                );
                return;
            }
            const message = JSON.parse(line) as {
                id?: unknown;
                result?: { protocolVersion?: unknown };
                error?: { message?: unknown };
            };
            if (message.id !== 1) return;
            const ms = Math.round(performance.now() - started);
            finish(
                message.result !== undefined
                    ? ok(
                          label,
                          `only protocol messages; initialize answered (protocol ${String(message.result.protocolVersion)}) in ${ms} ms`
                      )
                    : fail(label, `initialize was refused: ${String(message.error?.message)}`)
            );
        };
        child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
            pending += chunk;
            let newline: number;
            while (!settled && (newline = pending.indexOf("\n")) >= 0) {
                onLine(pending.slice(0, newline).replace(/\r$/, ""));
                pending = pending.slice(newline + 1);
            }
            // Output that never ends its line is not a protocol message either.
            if (!settled && pending.length > ACP_UNENDED_LINE_BYTES) {
                finish(fail(label, `stdout line ${lineNumber + 1} runs past 1 MB without ending`));
            }
        });
        child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
            stderrTail = (stderrTail + chunk).slice(-400);
        });
        child.on("error", (error) =>
            finish(fail(label, `cannot start \`north acp\`: ${error.message}`))
        );
        child.on("close", (code, signal) => {
            const why = stderrTail.trim().split("\n").at(-1) ?? "";
            finish(
                fail(
                    label,
                    `\`north acp\` exited (${signal ?? `code ${code}`}) before answering initialize${why ? `: ${why}` : ""}`
                )
            );
        });
        // A broken pipe is reported by "close"; it must not throw here.
        child.stdin.on("error", () => {});
        child.stdin.write(
            `${JSON.stringify({
                jsonrpc: "2.0",
                id: 1,
                method: "initialize",
                params: { protocolVersion: 1, clientCapabilities: {} },
            })}\n`
        );
    });
}
