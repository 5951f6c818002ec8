/**
 * The options of the one review menu every consent review shows (edit,
 * command, web fetch, MCP call, plan, trust), and what a key does to it.
 * Pure: the menu component (review-menu.tsx) draws and feeds these.
 *
 * Option 1 grants the least ("Yes, once"); a standing option says what it
 * grants and where it is kept, and Tab toggles that place; the last option is
 * always the refusal, which Esc reaches and which may take a one-line reason.
 */
import type { StandingOption } from "../../agent/approval-requirement";
import type { ApprovalDecision, ApprovalRequest, StandingScope } from "../../agent/approvals";
import { sanitizeLine } from "../render/diff-rows";

/** A refusal's reason is cut here (the model reads it; the API and stream-json refuse longer). */
export const MAX_REFUSAL_REASON_CHARS = 2000;

export interface MenuOption<T> {
    /** What choosing it does, in words; a standing option's depends on where it is kept. */
    label(scope: StandingScope): string;
    /**
     * It grants something beyond this request, kept at `scope`, and Tab toggles
     * that place; unset when only one place can keep it (an untrusted project's
     * local file is not written, so it is not offered).
     */
    standing?: boolean;
    /** The refusal: it opens a reason field first when `asksReason`. */
    refusal?: { asksReason: boolean };
    answer(scope: StandingScope, reason?: string): T;
}

/** Where a standing answer is kept, as the menu says it. */
export function standingPlace(scope: StandingScope): string {
    return scope === "local" ? "kept in .north/settings.local.json" : "kept in ~/.north for you";
}

const code = (text: string): string => `\`${sanitizeLine(text)}\``;

/** Longer commands are named by reference: the review shows them whole just above. */
const MAX_INLINE_COMMAND = 60;

/** A command as a standing option names it: inline when short and one line. */
function exactCommand(command: string): string {
    return command.length > MAX_INLINE_COMMAND || /[\r\n]/.test(command)
        ? "this exact command"
        : code(command);
}

const SAID = "; they said what to do instead: ";

/** A refusal as the model reads it: `base`, then the user's own words when they gave some. */
export function refusalReason(base: string, reason: string | undefined): string {
    return reason === undefined ? base : `${base}${SAID}${reason}`;
}

/** The user's own words in a refusal `refusalReason` made, if any (for the transcript). */
export function refusalWords(reason: string | undefined): string | undefined {
    const at = reason?.indexOf(SAID) ?? -1;
    return reason === undefined || at < 0 ? undefined : reason.slice(at + SAID.length);
}

const refuse = (base: string): MenuOption<ApprovalDecision> => ({
    label: () => "No, and tell North what to do instead",
    refusal: { asksReason: true },
    answer: (_scope, reason) => ({ outcome: "deny", reason: refusalReason(base, reason) }),
});

const once = (label: string): MenuOption<ApprovalDecision> => ({
    label: () => label,
    answer: () => ({ outcome: "approve" }),
});

/** A standing option of the request as the menu offers it; Tab toggles its place when it has two. */
function standingEntry(option: StandingOption): MenuOption<ApprovalDecision> {
    const { grant, remember } = option;
    const places = option.keptIn === "session" ? [] : option.keptIn;
    const scoped = (grants: string): MenuOption<ApprovalDecision> => ({
        label: (scope) => `Yes, and don't ask again for ${grants} (${standingPlace(scope)})`,
        standing: places.length > 1,
        answer: (scope) => ({
            outcome: "approve",
            remember,
            scope: places.includes(scope) ? scope : (places[0] ?? "personal"),
        }),
    });
    switch (grant.kind) {
        case "exact":
            return scoped(
                `${grant.command === undefined ? code(grant.key) : exactCommand(grant.command)} in this project`
            );
        case "prefix":
            return scoped(
                `commands starting ${code(grant.pattern.replace(/:\*$/, ""))} in this project`
            );
        case "host":
            return {
                label: () => `Yes, and don't ask again for ${code(grant.host)} in this session`,
                answer: () => ({ outcome: "approve", remember }),
            };
        case "every-command":
            return {
                label: () => "Yes, and don't ask again for any command this session",
                answer: () => ({ outcome: "approve", remember }),
            };
        case "every-edit":
            return {
                label: () => "Yes, and accept all edits this session (Shift+Tab to switch back)",
                answer: () => ({ outcome: "approve", remember }),
            };
        default:
            return grant satisfies never;
    }
}

/** What the options of an approval request depend on. */
export type MenuRequest = Pick<ApprovalRequest, "kind" | "toolName"> &
    Partial<Pick<ApprovalRequest, "command" | "domain">> & {
        /** The request's standing options (absent: none is offered). */
        standingOptions?: readonly StandingOption[];
    };

/** Option 1 and the refusal of a request, by what it asks. */
function onceAndRefusal(request: MenuRequest): [string, string] {
    if (request.kind === "write")
        return ["Yes, make this edit", "the user rejected this edit; nothing was written"];
    if (request.domain !== undefined) return ["Yes, fetch it once", "the user denied this fetch"];
    if (request.command === undefined)
        return ["Yes, call it once", "the user denied this tool call"];
    return ["Yes, run it once", "the user denied this command"];
}

/**
 * The options of a pending approval request: once, then each standing option
 * the request's requirement offered (agent/approval-requirement.ts), then no.
 */
export function approvalOptions(request: MenuRequest): MenuOption<ApprovalDecision>[] {
    if (request.kind === "plan") {
        return [
            once("Yes, start on this plan"),
            {
                label: () => "No, keep planning, and tell North what to change",
                refusal: { asksReason: true },
                // The plan's reason is the user's feedback, read as is (agent/plan.ts).
                answer: (_scope, reason) => ({
                    outcome: "deny",
                    ...(reason === undefined ? {} : { reason }),
                }),
            },
        ];
    }
    const [onceLabel, refusal] = onceAndRefusal(request);
    const standing = (request.standingOptions ?? []).filter((o) => o.inMenu).map(standingEntry);
    return [once(onceLabel), ...standing, refuse(refusal)];
}

/** The trust question's options: true trusts; false starts without it and asks again next time. */
export function trustOptions(): MenuOption<boolean>[] {
    return [
        { label: () => "Yes, trust this project", answer: () => true },
        {
            label: () => "No, start without its configuration (asks again next time)",
            refusal: { asksReason: false },
            answer: () => false,
        },
    ];
}

/** An MCP server's sampling request: true runs it through the model once. */
export function samplingOptions(): MenuOption<boolean>[] {
    return [
        { label: () => "Yes, run this one request through the model", answer: () => true },
        { label: () => "No, deny it", refusal: { asksReason: false }, answer: () => false },
    ];
}

/** Where the menu is: the highlighted option, the standing scope, and the reason being typed. */
export interface MenuState {
    selected: number;
    scope: StandingScope;
    /** The refusal's reason field, open when not null. */
    reason: string | null;
}

export const INITIAL_MENU_STATE: MenuState = { selected: 0, scope: "personal", reason: null };

/** The named keys of Ink's `useInput` the menu reads. */
export interface MenuKey {
    upArrow?: boolean;
    downArrow?: boolean;
    return?: boolean;
    escape?: boolean;
    tab?: boolean;
    backspace?: boolean;
    delete?: boolean;
    ctrl?: boolean;
    meta?: boolean;
}

export interface MenuKeyResult<T> {
    state: MenuState;
    /** Set when the key answered the review. */
    answer?: { value: T };
}

/** What `option` does once chosen: answer at once, or open the reason field. */
function choose<T>(options: readonly MenuOption<T>[], state: MenuState, index: number) {
    const option = options[index];
    if (!option) return { state };
    const next = { ...state, selected: index };
    if (option.refusal?.asksReason) return { state: { ...next, reason: "" } };
    return { state: next, answer: { value: option.answer(state.scope) } };
}

/** What one key does to a pending menu. Pure. */
export function menuKey<T>(
    options: readonly MenuOption<T>[],
    state: MenuState,
    input: string,
    key: MenuKey
): MenuKeyResult<T> {
    const last = options.length - 1;
    const refusal = options[last];
    if (state.reason !== null && refusal) {
        if (key.return) {
            const reason = state.reason.trim();
            return {
                state,
                answer: { value: refusal.answer(state.scope, reason === "" ? undefined : reason) },
            };
        }
        // Esc again: refuse without a reason.
        if (key.escape) return { state, answer: { value: refusal.answer(state.scope) } };
        if (key.backspace || key.delete) {
            return { state: { ...state, reason: [...state.reason].slice(0, -1).join("") } };
        }
        if (key.ctrl || key.meta || key.tab || key.upArrow || key.downArrow) return { state };
        // One line: pasted line breaks become spaces, control bytes go.
        const text = input.replace(/[\r\n\t]+/g, " ").replace(/\p{Cc}/gu, "");
        const reason = (state.reason + text).slice(0, MAX_REFUSAL_REASON_CHARS);
        return { state: { ...state, reason } };
    }
    if (key.escape) return choose(options, state, last);
    if (key.upArrow) return { state: { ...state, selected: Math.max(0, state.selected - 1) } };
    if (key.downArrow) return { state: { ...state, selected: Math.min(last, state.selected + 1) } };
    if (key.return) return choose(options, state, state.selected);
    if (key.tab) {
        if (!options[state.selected]?.standing) return { state };
        return { state: { ...state, scope: state.scope === "personal" ? "local" : "personal" } };
    }
    if (key.ctrl || key.meta) return { state };
    // The digit is the option's shortcut; no letter answers anything.
    if (/^[1-9]$/.test(input)) {
        const index = Number(input) - 1;
        if (index <= last) return choose(options, state, index);
    }
    return { state };
}
