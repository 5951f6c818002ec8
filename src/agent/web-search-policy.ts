/**
 * Whether a request offers the provider's server-side web search, and with
 * which limits. The provider runs the searches inside its response, so North
 * cannot review each one: the user's `WebFetch(domain:…)` rules become the
 * tool's domain filters, and where a rule cannot be expressed that way the
 * tool is not offered at all (and the user is told why, once).
 */
import type { ModelInfo } from "../providers/catalogue";
import { webSearchCapability, webSearchCostUsd } from "../providers/server-tools";
import type { ProviderApi, Usage, WebSearchParams } from "../providers/types";
import type { PermissionRule, PermissionRules } from "../tools/permissions/rules";

/** The `webSearch` setting (user or trusted project), or the `--web-search` flag. */
export interface WebSearchSetting {
    enabled: boolean;
    /** Searches per model response (default 5). */
    maxUses?: number;
    /** Search only the domains of `WebFetch(domain:…)` allow rules. */
    onlyAllowedDomains?: boolean;
}

export const DEFAULT_WEB_SEARCH_MAX_USES = 5;

/** One request's answer: the parameters to send, or why the tool is not offered. */
export type WebSearchDecision =
    | { kind: "off" }
    | { kind: "offered"; params: WebSearchParams; note?: string }
    | { kind: "not_offered"; reason: string };

const WEB_FETCH_TOOL = "web_fetch";
const WEB_FETCH_ALIASES = ["WebFetch"];
/** Claude Code's own rule for its search tool: a deny turns the provider's search off too. */
const WEB_SEARCH_RULE = "WebSearch";

/** Names a host literal (an IP address): search engines filter by domain names only. */
function isAddress(domain: string): boolean {
    return domain.includes(":") || /^\d+(\.\d+){3}$/.test(domain);
}

/** `sub` is `domain` or one of its subdomains. */
function within(sub: string, domain: string): boolean {
    return sub === domain || sub.endsWith(`.${domain}`);
}

/** What the rules in force allow `api`'s web search to do, with the setting's limits. */
export function decideWebSearch(
    api: ProviderApi | undefined,
    setting: WebSearchSetting | undefined,
    rules: PermissionRules | undefined
): WebSearchDecision {
    if (!setting?.enabled) return { kind: "off" };
    const capability = api === undefined ? undefined : webSearchCapability(api);
    if (!capability) {
        return {
            kind: "not_offered",
            reason: `this model's provider (${api ?? "unknown API"}) has no server-side web search North can offer`,
        };
    }
    const active = rules?.list().filter((r) => r.active()) ?? [];
    const searchDenied = active.find(
        (r) => r.kind === "deny" && r.target.type === "ignored" && r.text === WEB_SEARCH_RULE
    );
    if (searchDenied)
        return refused(
            `the deny rule "${searchDenied.text}" (${searchDenied.source}) forbids web search`
        );
    const fetchRule = rules?.forTool(WEB_FETCH_TOOL, WEB_FETCH_ALIASES);
    if (fetchRule?.decision === "deny") {
        return refused(
            `the deny rule "${fetchRule.rule.text}" (${fetchRule.rule.source}) forbids every web request`
        );
    }
    if (fetchRule?.decision === "ask") {
        return refused(
            `the rule "${fetchRule.rule.text}" (${fetchRule.rule.source}) asks before every web request, and the provider's searches cannot be asked about`
        );
    }
    const domainRules = active.filter(
        (r): r is PermissionRule & { target: { type: "domain"; domain: string } } =>
            r.target.type === "domain"
    );
    // An ask rule cannot be asked about either: its domain is kept out like a denied one.
    const kept = domainRules.filter((r) => r.kind !== "allow");
    const address = kept.find((r) => isAddress(r.target.domain));
    if (address) {
        return refused(
            `the rule "${address.text}" names an address, which a search's domain filter cannot express`
        );
    }
    const maxUses = setting.maxUses ?? DEFAULT_WEB_SEARCH_MAX_USES;
    // Told once where the provider cannot cap the searches of an answer (Gemini).
    const note = capability.maxUses
        ? undefined
        : `this provider's web search cannot be limited per answer, so maxUses (${maxUses}) does not apply`;
    if (setting.onlyAllowedDomains) {
        if (!capability.allowedDomains) {
            return refused(
                "webSearch.onlyAllowedDomains is on, and this provider's web search cannot be limited to domains"
            );
        }
        const allowed = [
            ...new Set(
                domainRules
                    .filter((r) => r.kind === "allow" && !isAddress(r.target.domain))
                    .map((r) => r.target.domain)
            ),
        ];
        if (allowed.length === 0) {
            return refused(
                'webSearch.onlyAllowedDomains is on but no "WebFetch(domain:…)" allow rule names a domain'
            );
        }
        // Blocked domains outside every allowed one are out anyway; one inside needs both lists.
        const inside = kept.find((r) => allowed.some((a) => within(r.target.domain, a)));
        if (inside) {
            return refused(
                `the rule "${inside.text}" keeps out part of an allowed domain, and the search cannot take allowed and blocked domains together`
            );
        }
        return { kind: "offered", params: { maxUses, allowedDomains: allowed } };
    }
    if (kept.length === 0)
        return { kind: "offered", params: { maxUses }, ...(note ? { note } : {}) };
    if (!capability.blockedDomains) {
        const hint = capability.allowedDomains
            ? " (turn on webSearch.onlyAllowedDomains to search only allowed ones)"
            : "";
        return refused(
            `the rule "${kept[0]!.text}" keeps a domain out, and this provider's web search cannot block domains${hint}`
        );
    }
    const blocked = [...new Set(kept.map((r) => r.target.domain))];
    return { kind: "offered", params: { maxUses, blockedDomains: blocked } };
}

function refused(reason: string): WebSearchDecision {
    return { kind: "not_offered", reason };
}

/**
 * A session's web search: decided per request (rules change as the user
 * answers), each reason for not offering it told once.
 */
export class WebSearchPolicy {
    private readonly told = new Set<string>();

    constructor(
        private readonly setting: WebSearchSetting,
        private readonly rules: PermissionRules | undefined,
        private readonly apiOf: (model: ModelInfo) => ProviderApi | undefined
    ) {}

    /** The parameters for a request to `model`, and a notice the first time a reason keeps it off. */
    forRequest(model: ModelInfo): { params?: WebSearchParams; notice?: string } {
        const decision = decideWebSearch(this.apiOf(model), this.setting, this.rules);
        if (decision.kind === "offered") {
            if (!decision.note || this.told.has(decision.note)) return { params: decision.params };
            this.told.add(decision.note);
            return { params: decision.params, notice: `Web search: ${decision.note}.` };
        }
        if (decision.kind === "off" || this.told.has(decision.reason)) return {};
        this.told.add(decision.reason);
        return { notice: `Web search is not offered: ${decision.reason}.` };
    }

    /** What a response's searches cost at its provider's per-search price. */
    costUsd(model: ModelInfo, usage: Usage): number {
        const api = this.apiOf(model);
        return api === undefined ? 0 : webSearchCostUsd(api, usage);
    }
}
