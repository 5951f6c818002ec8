/**
 * Keybindings in Claude Code's shape (`keybindings.json`: a list of
 * `{context, bindings: {key: action | null}}` blocks). The user's file is
 * laid over the defaults: a key it binds replaces the default in that
 * context, `null` unbinds it. Whatever is wrong in the file is reported and
 * left out, so the defaults stay for it.
 *
 * A key is a canonical string ("ctrl+o", "shift+up", "alt+m", "G" → "shift+g"),
 * so that two spellings of what a terminal sends alike ("shift+enter",
 * "ctrl+j") meet as one key.
 */
import { closestMatches } from "../../util/levenshtein";
import type { KeyEvent, KeyName } from "./keys";

/** Where a binding applies, most specific first (that order decides between them). */
export const KEYBINDING_CONTEXTS = ["Transcript", "Chat", "Scroll", "Global"] as const;
export type KeybindingContext = (typeof KEYBINDING_CONTEXTS)[number];

const ANYWHERE: readonly KeybindingContext[] = KEYBINDING_CONTEXTS;
/** Composer actions need the composer to have the keys. */
const COMPOSER: readonly KeybindingContext[] = ["Chat", "Transcript"];

/** Every action, with the contexts it may be bound in. */
export const KEYBINDING_ACTIONS = {
    "app:transcript": ANYWHERE,
    /** Unfolds the latest folded entry in place (no default key since Ctrl+O opens the transcript). */
    "app:toggleExpand": ANYWHERE,
    "app:toggleMouse": ANYWHERE,
    "app:backgroundCommand": ANYWHERE,
    "scroll:pageUp": ANYWHERE,
    "scroll:pageDown": ANYWHERE,
    "scroll:lineUp": ANYWHERE,
    "scroll:lineDown": ANYWHERE,
    "scroll:wheelUp": ANYWHERE,
    "scroll:wheelDown": ANYWHERE,
    "scroll:top": ANYWHERE,
    "scroll:bottom": ANYWHERE,
    "chat:submit": COMPOSER,
    "chat:newline": COMPOSER,
    "chat:cancel": COMPOSER,
    "chat:clearInput": COMPOSER,
    "chat:expandPaste": COMPOSER,
    "chat:cycleMode": COMPOSER,
    "chat:externalEditor": COMPOSER,
    "chat:pasteImage": COMPOSER,
    "history:previous": COMPOSER,
    "history:next": COMPOSER,
    "history:search": COMPOSER,
} as const satisfies Record<string, readonly KeybindingContext[]>;
export type KeybindingAction = keyof typeof KEYBINDING_ACTIONS;

/**
 * What North does with no file. Transcript is the empty composer: Home,
 * End and G move the view there (G only while reading back, else it is typed).
 */
export const DEFAULT_BINDINGS: Record<KeybindingContext, Record<string, KeybindingAction>> = {
    // Ctrl+B moves the cursor left in the composer while no command runs (app.tsx).
    Global: {
        "ctrl+o": "app:transcript",
        "alt+m": "app:toggleMouse",
        "ctrl+b": "app:backgroundCommand",
    },
    Scroll: {
        pageup: "scroll:pageUp",
        pagedown: "scroll:pageDown",
        "shift+up": "scroll:lineUp",
        "shift+down": "scroll:lineDown",
        wheelup: "scroll:wheelUp",
        wheeldown: "scroll:wheelDown",
        "ctrl+home": "scroll:top",
        "ctrl+end": "scroll:bottom",
    },
    Chat: {
        enter: "chat:submit",
        "ctrl+j": "chat:newline",
        escape: "chat:cancel",
        up: "history:previous",
        down: "history:next",
        "ctrl+r": "history:search",
        tab: "chat:cycleMode",
        "shift+tab": "chat:cycleMode",
        "ctrl+g": "chat:externalEditor",
        "ctrl+v": "chat:pasteImage",
        // The composer binds no Ctrl+T, and every terminal sends it (0x14).
        "ctrl+t": "chat:expandPaste",
    },
    Transcript: { home: "scroll:top", end: "scroll:bottom", "shift+g": "scroll:bottom" },
};

const NAMED_KEYS = [
    "enter",
    "escape",
    "tab",
    "backspace",
    "delete",
    "up",
    "down",
    "left",
    "right",
    "home",
    "end",
    "pageup",
    "pagedown",
    "space",
    "wheelup",
    "wheeldown",
] as const;

const KEY_ALIASES: Record<string, string> = {
    esc: "escape",
    return: "enter",
    " ": "space",
    pgup: "pageup",
    pgdn: "pagedown",
    pgdown: "pagedown",
    del: "delete",
    "↑": "up",
    "↓": "down",
    "←": "left",
    "→": "right",
};

const MODIFIERS: Record<string, "ctrl" | "alt" | "shift"> = {
    ctrl: "ctrl",
    control: "ctrl",
    alt: "alt",
    opt: "alt",
    option: "alt",
    meta: "alt",
    shift: "shift",
};

/** Control characters that are other keys (the terminal sends the same byte). */
const CTRL_IS: Record<string, string> = { m: "enter", i: "tab", h: "backspace", "[": "escape" };

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

const fail = (error: string): { ok: false; error: string } => ({ ok: false, error });

function joinStroke(mods: { ctrl: boolean; alt: boolean; shift: boolean }, key: string): string {
    return (
        (mods.ctrl ? "ctrl+" : "") + (mods.alt ? "alt+" : "") + (mods.shift ? "shift+" : "") + key
    );
}

/**
 * A key as written in the file ("ctrl+o", "Shift+Enter", "G", "pageup") to
 * its canonical form, or why North cannot bind it.
 */
export function parseKeystroke(text: string): Parsed<string> {
    const trimmed = text.trim();
    if (trimmed === "" && text !== " ") return fail("an empty key");
    if (/\S\s+\S/.test(trimmed))
        return fail("key sequences (chords such as ctrl+x ctrl+k) are not supported");
    const parts = text === " " ? [" "] : trimmed.split("+");
    // "ctrl++" and "+" bind the plus key.
    if (parts.at(-1) === "" && parts.length > 1) {
        parts.pop();
        parts[parts.length - 1] = "+";
    }
    const mods = { ctrl: false, alt: false, shift: false };
    for (const part of parts.slice(0, -1)) {
        const name = part.toLowerCase();
        if (["cmd", "command", "super", "win"].includes(name))
            return fail(`${part} never reaches a program in a terminal`);
        const mod = MODIFIERS[name];
        if (!mod) return fail(`unknown modifier "${part}" (ctrl, alt, shift)`);
        mods[mod] = true;
    }
    const last = parts.at(-1) as string;
    let key: string;
    if ([...last].length === 1 && last !== " ") {
        // A capital alone is Shift+letter ("G"); with ctrl or alt its case means nothing.
        if (/^[A-Z]$/.test(last)) {
            if (!mods.ctrl && !mods.alt) mods.shift = true;
            key = last.toLowerCase();
        } else key = last;
    } else {
        const lower = last.toLowerCase();
        key = KEY_ALIASES[lower] ?? KEY_ALIASES[last] ?? lower;
        if (!(NAMED_KEYS as readonly string[]).includes(key)) {
            const near = closestMatches(lower, [...NAMED_KEYS], 1);
            return fail(`unknown key "${last}"${near.length ? ` (did you mean ${near[0]}?)` : ""}`);
        }
    }
    const anyMod = mods.ctrl || mods.alt || mods.shift;
    if (key === "enter") return { ok: true, value: anyMod ? "ctrl+j" : "enter" };
    if (key === "wheelup" || key === "wheeldown" || key === "escape" || key === "space") {
        if (anyMod) return fail(`${key} cannot take modifiers in a terminal`);
        return { ok: true, value: key };
    }
    if (key === "tab") {
        if (mods.ctrl || mods.alt) return fail("ctrl+tab and alt+tab reach North as Tab");
        return { ok: true, value: mods.shift ? "shift+tab" : "tab" };
    }
    if ((NAMED_KEYS as readonly string[]).includes(key))
        return { ok: true, value: joinStroke(mods, key) };
    // One character.
    if (mods.ctrl) {
        if (mods.alt || mods.shift)
            return fail(
                `${trimmed} reaches North as ${mods.alt ? "alt" : "ctrl"}+${key} or not at all`
            );
        const same = CTRL_IS[key];
        if (same) return { ok: true, value: same };
        if (key === "c") return fail("ctrl+c is fixed: it clears the composer, cancels or exits");
        if (!/^[a-z]$/.test(key)) return fail(`ctrl+${key} is not a key terminals send`);
        return { ok: true, value: `ctrl+${key}` };
    }
    if (mods.alt) {
        if (mods.shift) return fail(`${trimmed} reaches North as alt+${key}`);
        if (key === "b") return { ok: true, value: "alt+left" };
        if (key === "f") return { ok: true, value: "alt+right" };
        return { ok: true, value: `alt+${key}` };
    }
    if (mods.shift) {
        if (!/^[a-z]$/.test(key))
            return fail(`write the character shift gives instead of shift+${key}`);
        return { ok: true, value: `shift+${key}` };
    }
    return { ok: true, value: key };
}

/** A key that types text (a character, Shift+letter, Space). */
export function isTypingKey(stroke: string): boolean {
    return stroke === "space" || /^(shift\+)?[^+]$/u.test(stroke) || stroke === "+";
}

const EVENT_NAMES: Partial<Record<KeyName, string>> = {
    return: "enter",
    newline: "ctrl+j",
    backtab: "shift+tab",
    tab: "tab",
    escape: "escape",
};

/** The canonical key of an input event; null for text runs, pastes and unknown sequences. */
export function strokeOfEvent(event: KeyEvent): string | null {
    switch (event.type) {
        case "text": {
            const chars = [...event.text];
            if (chars.length !== 1) return null;
            const ch = chars[0] as string;
            if (ch === " ") return "space";
            if (/^[A-Z]$/.test(ch)) return `shift+${ch.toLowerCase()}`;
            return ch;
        }
        case "key":
            return (
                EVENT_NAMES[event.name] ??
                joinStroke({ ctrl: event.ctrl, alt: event.meta, shift: event.shift }, event.name)
            );
        case "chord":
            return joinStroke({ ctrl: event.ctrl, alt: event.meta, shift: false }, event.letter);
        default:
            return null;
    }
}

export interface ResolvedKey {
    /** null: unbound on purpose (the key does nothing). */
    action: KeybindingAction | null;
    context: KeybindingContext;
}

export interface Keybindings {
    /** The binding of `stroke` in the first of `active` (most specific first) that has one. */
    resolve(active: readonly KeybindingContext[], stroke: string): ResolvedKey | undefined;
    /** The first key bound to `action` in `context` (for hints); undefined when none. */
    keyFor(action: KeybindingAction, context: KeybindingContext): string | undefined;
}

type Table = Map<KeybindingContext, Map<string, KeybindingAction | null>>;

function tableOf(blocks: Record<KeybindingContext, Record<string, KeybindingAction>>): Table {
    return new Map(
        KEYBINDING_CONTEXTS.map((c) => [c, new Map(Object.entries(blocks[c]))] as const)
    );
}

function keybindingsOf(table: Table): Keybindings {
    return {
        resolve(active, stroke) {
            for (const context of active) {
                const bound = table.get(context)?.get(stroke);
                if (bound !== undefined) return { action: bound, context };
            }
            return undefined;
        },
        keyFor(action, context) {
            for (const [stroke, bound] of table.get(context) ?? []) {
                if (bound === action) return stroke;
            }
            return undefined;
        },
    };
}

export const DEFAULT_KEYBINDINGS: Keybindings = keybindingsOf(tableOf(DEFAULT_BINDINGS));

export interface KeybindingsLoad {
    keybindings: Keybindings;
    /** One line per problem, each naming the context and key. */
    problems: string[];
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
    typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Keys written twice in one JSON object, as "path\0key" (path: ".bindings.0.bindings").
 * JSON.parse keeps the last silently; a binding written twice is a conflict.
 * `text` must already parse.
 */
export function duplicateJsonKeys(text: string): Set<string> {
    const found = new Set<string>();
    interface Frame {
        object: boolean;
        path: string;
        keys: Set<string>;
        key: string;
        index: number;
    }
    const stack: Frame[] = [];
    let i = 0;
    while (i < text.length) {
        const ch = text[i] as string;
        if (ch === '"') {
            let j = i + 1;
            while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
            const value = JSON.parse(text.slice(i, j + 1)) as string;
            i = j + 1;
            while (i < text.length && /\s/.test(text[i] as string)) i++;
            const top = stack.at(-1);
            if (top?.object && text[i] === ":") {
                if (top.keys.has(value)) found.add(`${top.path}\0${value}`);
                top.keys.add(value);
                top.key = value;
            }
            continue;
        }
        if (ch === "{" || ch === "[") {
            const top = stack.at(-1);
            const path = top ? `${top.path}.${top.object ? top.key : top.index}` : "";
            stack.push({ object: ch === "{", path, keys: new Set(), key: "", index: 0 });
        } else if (ch === "}" || ch === "]") stack.pop();
        else if (ch === ",") {
            const top = stack.at(-1);
            if (top && !top.object) top.index++;
        }
        i++;
    }
    return found;
}

const TOP_LEVEL = new Set(["$schema", "$docs", "bindings"]);

/**
 * The user's file laid over the defaults. `text` null: no file. Nothing in
 * the file can take a default away except on purpose (`null`, or another
 * action on its key); whatever is wrong is reported and left out.
 */
export function loadKeybindings(text: string | null): KeybindingsLoad {
    const problems: string[] = [];
    const table = tableOf(DEFAULT_BINDINGS);
    const done = (): KeybindingsLoad => ({ keybindings: keybindingsOf(table), problems });
    if (text === null || text.trim() === "") return done();
    let json: unknown;
    try {
        json = JSON.parse(text);
    } catch (error) {
        problems.push(`not valid JSON (${(error as Error).message}); no key was changed`);
        return done();
    }
    if (!isRecord(json) || !Array.isArray(json.bindings)) {
        problems.push(
            'must be an object with a "bindings" list of {"context", "bindings"} blocks; no key was changed'
        );
        return done();
    }
    for (const key of Object.keys(json)) {
        if (!TOP_LEVEL.has(key)) problems.push(`unknown field "${key}" ignored`);
    }
    const duplicates = duplicateJsonKeys(text);
    const user: Array<{ context: KeybindingContext; stroke: string; action: KeybindingAction }> =
        [];
    // Per context: the user's key → the bindings written for it (conflicts are dropped whole).
    const written = new Map<
        KeybindingContext,
        Map<string, Array<[string, KeybindingAction | null]>>
    >();
    json.bindings.forEach((block: unknown, index: number) => {
        const where = `bindings[${index}]`;
        if (!isRecord(block) || typeof block.context !== "string" || !isRecord(block.bindings)) {
            problems.push(`${where} must be {"context": "...", "bindings": {...}}; ignored`);
            return;
        }
        const context = block.context as KeybindingContext;
        if (!KEYBINDING_CONTEXTS.includes(context)) {
            const near = closestMatches(block.context, [...KEYBINDING_CONTEXTS], 1);
            problems.push(
                `${where}: unknown context "${block.context}"${near.length ? ` (did you mean ${near[0]}?)` : ""}; contexts are ${KEYBINDING_CONTEXTS.join(", ")}; ignored`
            );
            return;
        }
        for (const [key, value] of Object.entries(block.bindings)) {
            const at = `${context} "${key}"`;
            if (duplicates.has(`.bindings.${index}.bindings\0${key}`)) {
                problems.push(`${at} is written twice in one block; neither is used`);
                continue;
            }
            const parsed = parseKeystroke(key);
            if (!parsed.ok) {
                problems.push(`${at}: ${parsed.error}; ignored`);
                continue;
            }
            const stroke = parsed.value;
            if (value !== null && typeof value !== "string") {
                problems.push(`${at}: the action must be a string or null; ignored`);
                continue;
            }
            if (value !== null && !(value in KEYBINDING_ACTIONS)) {
                const near = closestMatches(value, Object.keys(KEYBINDING_ACTIONS), 1);
                problems.push(
                    `${at}: unknown action "${value}"${near.length ? ` (did you mean ${near[0]}?)` : ""}; ignored`
                );
                continue;
            }
            const action = value as KeybindingAction | null;
            if (action !== null && !KEYBINDING_ACTIONS[action].includes(context)) {
                problems.push(
                    `${at}: ${action} can only be bound in ${KEYBINDING_ACTIONS[action].join(" or ")}; ignored`
                );
                continue;
            }
            if (action !== null && context !== "Transcript" && isTypingKey(stroke)) {
                problems.push(
                    `${at}: a key that types text would stop typing it (${context} is active while you type); ignored`
                );
                continue;
            }
            const forContext = written.get(context) ?? new Map();
            written.set(context, forContext);
            const list = forContext.get(stroke) ?? [];
            list.push([key, action]);
            forContext.set(stroke, list);
        }
    });
    for (const [context, forContext] of written) {
        for (const [stroke, list] of forContext) {
            const actions = new Set(list.map(([, action]) => action));
            if (actions.size > 1) {
                const keys = [...new Set(list.map(([key]) => `"${key}"`))];
                const what =
                    keys.length > 1
                        ? `${keys.join(" and ")} are one key to a terminal (${stroke}),`
                        : `${keys[0]} is`;
                problems.push(
                    `${context}: ${what} bound to ${[...actions].map(String).join(" and ")}; neither is used`
                );
                continue;
            }
            const action = list[0]?.[1] ?? null;
            table.get(context)?.set(stroke, action);
            if (action !== null) user.push({ context, stroke, action });
        }
    }
    // A binding a more specific context takes first never fires while that context is active.
    for (const { context, stroke, action } of user) {
        const order = KEYBINDING_CONTEXTS.indexOf(context);
        for (const before of KEYBINDING_CONTEXTS.slice(0, order)) {
            if (before === "Transcript") continue; // only while the composer is empty
            const taken = table.get(before)?.get(stroke);
            if (taken) {
                const when =
                    before === "Chat"
                        ? "while the composer has the keys"
                        : "unless a review scrolls";
                problems.push(
                    `${context} "${stroke}" (${action}) is taken first by ${before} (${taken}) ${when}; set it to null in ${before} to free it`
                );
            }
        }
    }
    return done();
}
