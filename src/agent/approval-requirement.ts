/**
 * What one tool call needs before it may run, computed once as a value from
 * every source: the run's mode (its tool list, plan mode, accept-edits), the
 * deny / ask / allow permission rules (by tool name, `Bash(...)` patterns,
 * Edit paths, WebFetch domains), a PreToolUse hook's verdict, standing
 * approvals (personal, local, session), print mode's flags and protected
 * paths. The OS sandbox grants nothing here: the review names what it
 * allows, and a sandbox that cannot run fails the attempt. The driver
 * (approval-driver.ts) asks only for `needs-approval`, and keeps only a
 * standing option offered here.
 *
 * Order, strongest first: a deny (rule, hook block, mode) is final; an ask
 * rule or a hook's "ask" forces the review whatever allows the call; then
 * the first grant that allows it (hook, auto-approval, rule, allowlist, mode).
 */
import path from "node:path";
import { type SafePath, protectedConfigFor } from "../tools/path-guard";
import { judgeCommand, suggestPrefixRule } from "../tools/permissions/command-judge";
import type { PermissionRule, PermissionRules, RuleMatch } from "../tools/permissions/rules";
import type { CommandVerdict } from "../tools/permissions/types";
import {
    createWriteTargetJudge,
    denyingEditRuleOfWrite,
    protectedWriteOf,
} from "../tools/permissions/write-targets";
import type { FileDiff, ShellApproval, ToolErrorCode } from "../tools/types";
import type { ApprovalSettings, StandingScope } from "./approvals";
import { PLAN_REQUIRED_MESSAGE } from "./plan";

/** A PreToolUse hook's say: block the call, or allow / force-ask its approval. */
export interface PreToolVerdict {
    block?: { reason: string };
    permission?: { decision: "allow" | "ask"; reason?: string };
}

/** Whether the run accepts edits without review, and the switch an edit review's "all" turns on. */
export interface EditsMode {
    accepting(): boolean;
    acceptFromNowOn(): void;
}

/** Who let a call run without asking (the log's `approvedBy`). */
export type ApprovedBy =
    /** The tool needs nobody's approval (reads). */
    | "no-approval"
    | "hook"
    /** Standing auto-approval: a settings switch, a flag, or "every command" this session. */
    | "auto"
    | "rule"
    /** The exact command (or MCP tool) was approved before, or a flag names it. */
    | "allowlist"
    /** The run's `accept-edits` mode. */
    | "mode"
    /** Print mode's `--allow-edits --allow-config-edits` (protected configuration). */
    | "flag";

/** What a standing answer allows from now on. */
export type StandingGrant =
    /** This exact command, or an MCP tool by its name (`key` is what is kept). */
    | { kind: "exact"; key: string; command?: string }
    /** Commands matching a `Bash(pattern)` allow rule (`npm test:*`). */
    | { kind: "prefix"; pattern: string }
    /** A web host, for this session (`rule` is the `WebFetch(domain:…)` allow rule). */
    | { kind: "host"; host: string; rule: string }
    | { kind: "every-command" }
    /** The run switches to `accept-edits`. */
    | { kind: "every-edit" };

/** One "don't ask again" a review may offer, with what it grants and where it is kept. */
export interface StandingOption {
    /** The decision's `remember` that picks it. */
    remember: "exact" | "prefix" | "all";
    grant: StandingGrant;
    /**
     * The places an answer may keep it (the first is the default), or
     * "session": kept nowhere, it ends with the session. The local place is
     * offered only while the project is trusted (North writes its files only then).
     */
    keptIn: readonly StandingScope[] | "session";
    /** The chat's review lists it; false: only an approver in code (Node API, tests) picks it. */
    inMenu: boolean;
}

export type ApprovalRequirement =
    | { kind: "skip"; approvedBy: ApprovedBy }
    | {
          kind: "forbidden";
          reason: string;
          code: Extract<ToolErrorCode, "denied" | "plan_required">;
      }
    | {
          kind: "needs-approval";
          /** Why it is asked, for the log. */
          reason: string;
          /** The ask rule (or forced judge verdict) that made the review appear, as written. */
          askRule?: string;
          standingOptions: StandingOption[];
          /** Why no standing option is offered (a protected write, a rule that always reviews). */
          noStanding?: string;
      };

/** A refusal: the model reads `reason` as the call's error. */
export type Forbidden = Extract<ApprovalRequirement, { kind: "forbidden" }>;

/** A write's file: its diff and where it would land, resolved from the disk. */
export interface WriteTarget {
    diff: FileDiff;
    safe: SafePath;
}

/** The call the requirement is for. */
export type ApprovalSubject =
    | { kind: "shell"; toolName: string; approval: ShellApproval }
    | { kind: "write"; toolName: string; targets: readonly WriteTarget[] };

/** Every source besides the call itself. */
export interface RequirementSources {
    settings: ApprovalSettings;
    repoRoot: string;
    /** The tool is in the run's mode's list (ask mode lists read-only tools only); default yes. */
    inMode?: boolean;
    /** Plan mode before a plan was accepted: changes and commands are refused. */
    planRequired?: boolean;
    editsMode?: EditsMode;
    /** The rule on the tool's name (`Bash`, `mcp__srv`), judged before any hook runs. */
    byName?: RuleMatch;
    /** The PreToolUse hooks' verdict; absent when none ran. */
    hook?: PreToolVerdict | null;
}

/** "Bash(rm:*) (/p/.north/settings.json)": a rule as messages name it. */
export function ruleLabel(rule: Pick<PermissionRule, "text" | "source">): string {
    return `${rule.text} (${rule.source})`;
}

function forbidden(reason: string): Forbidden {
    return { kind: "forbidden", reason, code: "denied" };
}

function forbiddenByRule(
    what: string,
    rule: Pick<PermissionRule, "text" | "source">,
    after = ""
): Forbidden {
    return forbidden(
        `${what} is denied by the permission rule ${ruleLabel(rule)}${after}; do not try to get around it: tell the user what you wanted to do and why`
    );
}

/**
 * The refusals that hold before any hook runs or anything is prepared: the
 * mode's tool list, plan mode, a deny rule on the tool's name. Null: none.
 */
export function refusalBeforeHooks(
    toolName: string,
    sources: Pick<RequirementSources, "inMode" | "planRequired" | "byName">
): Forbidden | null {
    if (sources.inMode === false) {
        return forbidden(
            `${toolName} is not available in this mode (read-only tools only); describe the change instead`
        );
    }
    if (sources.planRequired) {
        return { kind: "forbidden", code: "plan_required", reason: PLAN_REQUIRED_MESSAGE };
    }
    if (sources.byName?.decision === "deny") return forbiddenByRule(toolName, sources.byName.rule);
    return null;
}

/** A hook's block, as a refusal the model reads. */
export function hookRefusal(hook: RequirementSources["hook"]): Forbidden | null {
    return hook?.block ? forbidden(`blocked by a PreToolUse hook: ${hook.block.reason}`) : null;
}

/** The call's requirement from every source (see the file's comment). */
export async function approvalRequirement(
    subject: ApprovalSubject,
    sources: RequirementSources
): Promise<ApprovalRequirement> {
    const refusal = refusalBeforeHooks(subject.toolName, sources) ?? hookRefusal(sources.hook);
    if (refusal) return refusal;
    return subject.kind === "shell"
        ? shellRequirement(subject.approval, sources)
        : writeRequirement(subject.targets, sources);
}

/** Whether the review is forced: an ask rule, or the hook's "ask". */
function forcedReview(
    askRule: string | undefined,
    hook: RequirementSources["hook"]
): string | undefined {
    if (askRule !== undefined) return `a permission rule asks for it: ${askRule}`;
    if (hook?.permission?.decision === "ask")
        return `a PreToolUse hook asks for it${hook.permission.reason ? `: ${hook.permission.reason}` : ""}`;
    return undefined;
}

async function shellRequirement(
    approval: ShellApproval,
    sources: RequirementSources
): Promise<ApprovalRequirement> {
    const { settings, repoRoot } = sources;
    const { command, cwd, domain, rememberKey } = approval;
    const ruled = await judgeShellByRules(sources, command, cwd);
    if ("refusal" in ruled) return ruled.refusal;
    const typed = await judgeTypedText(sources, approval);
    if (typed && "refusal" in typed) return typed.refusal;
    if (typed?.askRule !== undefined) {
        ruled.askRule ??= typed.askRule;
        ruled.forcedBy ??= typed.forcedBy;
    }
    const byDomain = domain === undefined ? undefined : settings.permissionRules?.forDomain(domain);
    if (byDomain?.decision === "deny")
        return forbiddenByRule(`fetching ${approval.summary}`, byDomain.rule);
    const askRule =
        ruled.askRule ?? (byDomain?.decision === "ask" ? ruleLabel(byDomain.rule) : undefined);
    const allowedBy =
        ruled.allowedBy ?? (byDomain?.decision === "allow" ? ruleLabel(byDomain.rule) : undefined);
    const forced = forcedReview(askRule, sources.hook);
    if (forced === undefined) {
        if (sources.hook?.permission?.decision === "allow")
            return { kind: "skip", approvedBy: "hook" };
        if (settings.isShellAutoApproved()) return { kind: "skip", approvedBy: "auto" };
        if (allowedBy !== undefined) return { kind: "skip", approvedBy: "rule" };
        if (settings.isCommandAllowed(rememberKey))
            return { kind: "skip", approvedBy: "allowlist" };
    }
    const noStanding =
        ruled.forcedBy ??
        (command === undefined
            ? undefined
            : await protectedWriteOf(
                  command,
                  repoRoot,
                  cwd ?? repoRoot,
                  settings.permissionRules?.bases.home
              ));
    const requirement: ApprovalRequirement = {
        kind: "needs-approval",
        reason: forced ?? "no rule or standing approval allows it",
        standingOptions:
            noStanding === undefined
                ? shellStandingOptions(
                      approval,
                      // Typing into a program: "always" is for that program's command line as a whole.
                      command === undefined || approval.typed !== undefined
                          ? null
                          : await suggestPrefixRule(command),
                      settings.keepsLocalAnswers?.() !== false
                  )
                : [],
    };
    if (askRule !== undefined) requirement.askRule = askRule;
    if (noStanding !== undefined) requirement.noStanding = noStanding;
    return requirement;
}

/**
 * The standing answers a command, MCP call or web fetch may be given: its
 * exact key (a web host: for the session), its prefix pattern when there is
 * one, and every command this session (for approvers in code, not the menu).
 * `localScope`: the project's local file can keep an answer now.
 */
export function shellStandingOptions(
    approval: Pick<ShellApproval, "command" | "domain" | "rememberKey">,
    prefix: string | null,
    localScope: boolean
): StandingOption[] {
    const scopes: StandingScope[] = localScope ? ["personal", "local"] : ["personal"];
    const options: StandingOption[] = [];
    const { command, domain, rememberKey } = approval;
    if (domain !== undefined) {
        // "Always" for a web host is a session rule, never a saved command.
        options.push({
            remember: "exact",
            grant: { kind: "host", host: domain, rule: rememberKey },
            keptIn: "session",
            inMenu: true,
        });
    } else {
        const grant: StandingGrant =
            command === undefined
                ? { kind: "exact", key: rememberKey }
                : { kind: "exact", key: rememberKey, command };
        options.push({ remember: "exact", grant, keptIn: scopes, inMenu: true });
        if (prefix !== null && prefix !== command) {
            options.push({
                remember: "prefix",
                grant: { kind: "prefix", pattern: prefix },
                keptIn: scopes,
                inMenu: true,
            });
        }
    }
    options.push({
        remember: "all",
        grant: { kind: "every-command" },
        keptIn: "session",
        inMenu: false,
    });
    return options;
}

/** An edit's standing answer: all edits this session; none for protected configuration. */
export function editStandingOptions(protectedWrite: boolean): StandingOption[] {
    return protectedWrite
        ? []
        : [{ remember: "all", grant: { kind: "every-edit" }, keptIn: "session", inMenu: true }];
}

/**
 * The deny rule behind a judge's verdict, with its source: the `Bash(...)`
 * rule of the pattern that matched, or the Edit rule the write judge found
 * over the path a command writes.
 */
function denyRuleOf(
    rules: PermissionRules,
    commandRules: ReturnType<PermissionRules["commandRules"]>,
    verdict: Extract<CommandVerdict, { decision: "deny" }>
): Pick<PermissionRule, "text" | "source"> {
    const { deniedBy } = verdict;
    if (deniedBy.type === "command") {
        const rule = commandRules.ruleOf("deny", deniedBy.pattern);
        if (rule) return rule;
    } else {
        const match = denyingEditRuleOfWrite(rules, deniedBy.path, deniedBy.cwd);
        if (match) return match.rule;
    }
    // A pattern matched against a rule's glob: the verdict names that rule as written.
    const named = rules
        .list()
        .find((r) => r.kind === "deny" && r.active() && r.text === verdict.rule);
    return named ?? { text: verdict.rule, source: "permission rules" };
}

/**
 * The rules' say on a shell-policy call: its name's rule (a bare `Bash`, an
 * MCP server), then, for a command, the judge over the `Bash(...)` patterns.
 * A refusal names the deny rule; `askRule` forces the review; `forcedBy`
 * says why no standing answer may be kept.
 */
async function judgeShellByRules(
    sources: Pick<RequirementSources, "settings" | "repoRoot" | "byName">,
    command: string | undefined,
    cwd: string | undefined
): Promise<
    | { refusal: Forbidden; deniedBy: string }
    | { askRule?: string; allowedBy?: string; forcedBy?: string }
> {
    const { byName, settings, repoRoot } = sources;
    let askRule = byName?.decision === "ask" ? ruleLabel(byName.rule) : undefined;
    let allowedBy = byName?.decision === "allow" ? ruleLabel(byName.rule) : undefined;
    const rules = settings.permissionRules;
    // Without Bash patterns or Edit deny/ask rules the judge could only say "ask": skip the parse.
    if (command === undefined || !rules?.judgesCommands()) return { askRule, allowedBy };
    const commandRules = rules.commandRules();
    const verdict = await judgeCommand(
        command,
        commandRules,
        createWriteTargetJudge(repoRoot, settings),
        {
            cwd: cwd ?? repoRoot,
            home: rules.bases.home,
            editDenyGlobs: rules.pathGlobs("deny", "edit"),
        }
    );
    if (verdict.decision === "deny") {
        const rule = denyRuleOf(rules, commandRules, verdict);
        return {
            refusal: forbiddenByRule(`\`${command}\``, rule, ` (${verdict.reason})`),
            deniedBy: `${ruleLabel(rule)} (${verdict.reason})`,
        };
    }
    if (verdict.decision === "ask" && verdict.forced) {
        askRule ??= verdict.reason;
        return { askRule, allowedBy, forcedBy: verdict.reason };
    }
    if (verdict.decision === "allow") allowedBy ??= "Bash rules";
    return { askRule, allowedBy };
}

/**
 * A command the user typed (`!cmd` in the chat) runs without a review, but
 * the deny rules hold for it as for the model's: the rule on the tool's name
 * (a bare `Bash`), then the `Bash(...)` patterns. The rule that refuses it,
 * as the user reads it; null: it may run.
 */
export async function userCommandDenial(
    command: string,
    cwd: string | undefined,
    sources: Pick<RequirementSources, "settings" | "repoRoot" | "byName">
): Promise<string | null> {
    if (sources.byName?.decision === "deny") return ruleLabel(sources.byName.rule);
    const judged = await judgeShellByRules(sources, command, cwd);
    return "deniedBy" in judged ? judged.deniedBy : null;
}

/**
 * Text typed into a program (process_send) may be a command: any program can
 * run what it is given (a shell, `ssh host`, `docker exec -it c sh`, a REPL's
 * `os.system`), so deny rules refuse typed text that matches them and ask
 * rules force the review, whatever the program; no allow rule grants it
 * (allow rules and "always" judge the program's command line). Undefined:
 * nothing typed.
 */
async function judgeTypedText(
    sources: Pick<RequirementSources, "settings" | "repoRoot">,
    approval: ShellApproval
): Promise<{ refusal: Forbidden } | { askRule?: string; forcedBy?: string } | undefined> {
    const typed = approval.typed;
    if (typed === undefined || typed.text.trim() === "") return undefined;
    const judged = await judgeShellByRules(sources, typed.text.trim(), approval.cwd);
    if ("refusal" in judged) return judged;
    return judged.forcedBy === undefined
        ? {}
        : { askRule: judged.askRule, forcedBy: judged.forcedBy };
}

/** The targets' paths that are protected configuration (never accepted without a review). */
export function protectedPathsOf(repoRoot: string, targets: readonly WriteTarget[]): string[] {
    return targets.flatMap(({ diff, safe }) =>
        protectedConfigFor(repoRoot, safe) ? [diff.path] : []
    );
}

/**
 * The Edit rules over every file of a change (the path as written and where
 * its links lead): a refusal naming the deny rule, the ask rule that forces
 * the review, or whether allow rules cover every file.
 */
function judgeEditRules(
    rules: PermissionRules | undefined,
    repoRoot: string,
    targets: readonly WriteTarget[]
): { refusal: Forbidden } | { askRule?: string; allAllowed: boolean } {
    if (!rules) return { allAllowed: false };
    let askRule: string | undefined;
    let allAllowed = targets.length > 0;
    for (const { diff, safe } of targets) {
        const paths = [path.join(repoRoot, diff.path), safe.realPath];
        const matches = paths.map((p) => rules.forPath("edit", p));
        const deny = matches.find((m) => m?.decision === "deny");
        if (deny)
            return {
                refusal: forbiddenByRule(
                    `editing ${diff.path}`,
                    deny.rule,
                    "; nothing was written"
                ),
            };
        const asked = matches.find((m) => m?.decision === "ask");
        if (asked) askRule ??= ruleLabel(asked.rule);
        // A link out of an allowed folder is allowed only where it leads is allowed too.
        if (!matches.every((m) => m?.decision === "allow")) allAllowed = false;
    }
    return { askRule, allAllowed };
}

/**
 * An edit: protected configuration is always reviewed (auto-accept, the mode
 * and a hook's "allow" do not count) unless print mode's flags allow it, and
 * its review offers no standing answer.
 */
function writeRequirement(
    targets: readonly WriteTarget[],
    sources: RequirementSources
): ApprovalRequirement {
    const { settings, repoRoot, byName, hook } = sources;
    const ruled = judgeEditRules(settings.permissionRules, repoRoot, targets);
    if ("refusal" in ruled) return ruled.refusal;
    const askRule =
        ruled.askRule ?? (byName?.decision === "ask" ? ruleLabel(byName.rule) : undefined);
    const forced = forcedReview(askRule, hook);
    const guarded = protectedPathsOf(repoRoot, targets);
    if (forced === undefined) {
        if (guarded.length > 0) {
            if (settings.areProtectedEditsAllowed?.() === true)
                return { kind: "skip", approvedBy: "flag" };
        } else if (hook?.permission?.decision === "allow")
            return { kind: "skip", approvedBy: "hook" };
        else if (ruled.allAllowed || byName?.decision === "allow")
            return { kind: "skip", approvedBy: "rule" };
        else if (sources.editsMode?.accepting() === true)
            return { kind: "skip", approvedBy: "mode" };
        else if (settings.isEditsAutoAccepted()) return { kind: "skip", approvedBy: "auto" };
    }
    const requirement: ApprovalRequirement = {
        kind: "needs-approval",
        reason:
            forced ??
            (guarded.length > 0
                ? `${guarded.join(", ")} is protected configuration`
                : "no rule, mode or setting accepts edits"),
        standingOptions: editStandingOptions(guarded.length > 0),
    };
    if (askRule !== undefined) requirement.askRule = askRule;
    if (guarded.length > 0) requirement.noStanding = "protected configuration is always reviewed";
    return requirement;
}
