import { memo, useCallback, useContext, useEffect, useRef, useState } from "react";
import type { MutableRefObject, ReactElement } from "react";
import { Box, Text } from "ink";
import type { Mode } from "../../agent/events";
import type { KeyEvent } from "../input/keys";
import { KeyGateContext } from "../hooks/use-key-gate";
import { MEMORY_NOTE_HINT, memoryNoteOf } from "../memory-note";
import { useRawInput } from "../hooks/use-raw-input";
import { sanitizeText } from "../render/sanitize";
import { MODE_COLORS } from "../theme";
import { useTheme } from "../use-theme";
import { layoutComposer, wrapWidth } from "./composer-layout";
import { editorOf } from "./editor";
import { draftText, withAttachedImage, withEditedDraft } from "./draft-edits";
import { chipLabels } from "./paste-chips";
import { type VimState, VIM_INSERT, vimModeLabel } from "./vim";
import { vimKey } from "./vim-keys";
import type { SlashSource } from "./slash-complete";
import {
    type ComposerState,
    type HistorySearch,
    type PromptHistory,
    type SuggestFiles,
    clearComposer,
    clearedText,
    composerKey,
    composerWantsEscape,
    createComposerState,
    expandChips,
    matchRange,
    refreshSuggestions,
    withDraft,
    withHistory,
    withTakenBack,
} from "./composer-state";

/** What the App asks of the composer from its own key handling. */
export interface ComposerControl {
    /**
     * One key, fed by the App in order with its own handling (one listener, so
     * Ctrl+C then text in one input string stay in that order).
     */
    key(event: KeyEvent): void;
    /** Ctrl+C: empties the composer (Up brings the text back); false when it was empty. */
    clear(): boolean;
    /** Esc closes something in the composer (suggestions, a search) rather than interrupting. */
    wantsEscape(): boolean;
    /** Nothing typed, searched or being pasted (keys may move the transcript instead). */
    isEmpty(): boolean;
    /** Puts queued text back in front of what the composer holds. */
    takeBack(text: string, attachments: readonly string[]): void;
    /** Ctrl+T: opens the paste chips into their text; false when there are none. */
    expandPaste(): boolean;
    /** The draft with paste chips written out (Ctrl+G hands it to the editor). */
    draftText(): string;
    /** Replaces the draft with what the editor saved, the cursor at its end (one undo step). */
    replaceDraft(text: string): void;
    /** Attaches an image file at the cursor as `@path` (Ctrl+V). */
    attachImage(path: string): void;
}

export interface ComposerProps {
    width: number;
    /** Most text lines shown; longer text scrolls with the cursor. */
    maxLines: number;
    /**
     * Takes keys (false while a review or a dialog has the keyboard). With
     * the App's key gate, keys that continue a burst of typing as a review
     * appears are still taken.
     */
    active: boolean;
    busy: boolean;
    /** Busy right now, for keys that arrive before the next render. */
    isBusy?: () => boolean;
    /** Text sent while busy, waiting for the run to end (shown above the box). */
    queued?: string | null;
    /** Takes the queued text back for editing (Up in the empty composer). */
    onUnqueue?: () => { text: string; attachments: readonly string[] } | null;
    /** Filled with what the App may ask of the composer; the App then feeds every key. */
    control?: MutableRefObject<ComposerControl | null>;
    /** A review is waiting for an answer. */
    reviewing: boolean;
    mode: Mode;
    /** False when the prompt was not taken: the text stays. */
    onSubmit: (text: string, attachments: string[]) => boolean | void;
    onToggleMode: () => void;
    suggest: SuggestFiles;
    /** Commands and models for slash autocomplete. */
    slash?: SlashSource;
    /** Resolves once file suggestions can be given (first @). */
    whenSuggestionsReady?: () => Promise<unknown>;
    /** Earlier prompts (saved per project); without it only this chat's are kept. */
    history?: PromptHistory;
    /** Esc Esc in the empty composer. */
    onRewind?: () => void;
    /** Text put back from outside (a rewound prompt); each new `seq` replaces what the composer holds. */
    draft?: { text: string; seq: number } | null;
    /** Vim keys (`editorMode: "vim"`, `/vim`): Esc to normal mode, i to insert. */
    vim?: boolean;
    /** Said first on the hint line ("Press Ctrl+C again to exit"). */
    notice?: string | null;
}

const MAX_SUGGESTIONS = 8;

/** Vim's u goes through the composer's own undo. */
const CTRL_Z: KeyEvent = { type: "chord", letter: "z", ctrl: true, meta: false };

/** The badge colour of each mode. */

/** Keys the App keeps for itself whatever the composer does. */
function isAppKey(event: KeyEvent): boolean {
    if (event.type === "chord") return event.ctrl && event.letter === "c";
    return event.type === "key" && (event.name === "pageup" || event.name === "pagedown");
}

function Suggestions(props: { state: ComposerState; width: number }): ReactElement | null {
    const s = props.state.suggestions;
    const theme = useTheme();
    if (!s) return null;
    if (s.items === null) return <Text color={theme.dim}> indexing files…</Text>;
    if (s.items.length === 0) return <Text color={theme.dim}> no matching files</Text>;
    const first = Math.max(0, Math.min(s.selected - MAX_SUGGESTIONS + 1, s.items.length));
    const shown = s.items.slice(first, first + MAX_SUGGESTIONS);
    const more = s.items.length - first - shown.length;
    return (
        <Box flexDirection="column">
            {shown.map((item, i) => {
                const selected = first + i === s.selected;
                return (
                    <Text key={item.value} wrap="truncate-end">
                        <Text color={selected ? theme.accent : undefined}>
                            {selected ? "› " : "  "}
                        </Text>
                        <Text bold={selected}>{sanitizeText(item.label)}</Text>
                        {item.hint ? (
                            <Text color={theme.dim}> {sanitizeText(item.hint)}</Text>
                        ) : null}
                    </Text>
                );
            })}
            {more > 0 || first > 0 ? (
                <Text color={theme.dim}>
                    {"  "}
                    {s.items.length} matches · ↑/↓ choose · Tab inserts · Esc closes
                </Text>
            ) : null}
        </Box>
    );
}

/** The draft is taller than the composer: how many of its rows are out of view, and where. */
function MoreLines(props: { count: number; arrow: "↑" | "↓" }): ReactElement {
    const theme = useTheme();
    const { count, arrow } = props;
    return (
        <Text color={theme.dim} wrap="truncate-end">
            {"  "}
            {arrow} {count} more {count === 1 ? "line" : "lines"}
        </Text>
    );
}

/** The message waiting for the run to end, on one line. */
function QueuedLine(props: { text: string; width: number }): ReactElement {
    const lines = props.text.split("\n");
    const more = lines.length > 1 ? ` (+${lines.length - 1} lines)` : "";
    const theme = useTheme();
    return (
        <Text wrap="truncate-end">
            <Text color={theme.warning}>queued </Text>
            <Text>{sanitizeText(lines[0] ?? "")}</Text>
            <Text color={theme.dim}>{more} · sent when this answer ends · ↑ to edit</Text>
        </Text>
    );
}

/** The search line: what is searched for, and whether anything older matched. */
function SearchLabel(props: { search: HistorySearch }): ReactElement {
    const { search } = props;
    const theme = useTheme();
    return (
        <Text wrap="truncate-end">
            <Text color={search.failed ? theme.warning : theme.accent}>
                {search.failed ? "(failed reverse-i-search)" : "(reverse-i-search)"}
            </Text>
            <Text>`{sanitizeText(search.query)}&apos;</Text>
            <Text color={theme.dim}>
                {search.match === null && search.query !== "" ? " no matching prompt" : ""}
            </Text>
        </Text>
    );
}

/**
 * The input box: multiline (Ctrl+J, Shift+Enter), paste, history (Up/Down on
 * the first/last line, Ctrl+R search), @ file mentions, slash command
 * autocomplete, Tab for the mode (ask → agent → plan) when no suggestions are open.
 */
function ComposerView(props: ComposerProps): ReactElement {
    const theme = useTheme();
    const { width, active, busy, reviewing, mode, suggest } = props;
    // The saved prompts are read with the first key, not for the first frame.
    const [state, setState] = useState(() => createComposerState());
    const stateRef = useRef(state);
    stateRef.current = state;
    const propsRef = useRef(props);
    propsRef.current = props;

    const [vim, setVim] = useState<VimState>(VIM_INSERT);
    const vimRef = useRef(vim);
    const changeVim = useCallback((next: VimState) => {
        vimRef.current = next;
        setVim(next);
    }, []);
    // Esc in insert mode is vim's (to normal mode), not an interrupt.
    const wantsEscape = useCallback(
        () =>
            composerWantsEscape(stateRef.current) ||
            (propsRef.current.vim === true && vimRef.current.mode === "insert"),
        []
    );
    const gate = useContext(KeyGateContext);
    const set = useCallback((next: ComposerState) => {
        stateRef.current = next;
        setState(next);
    }, []);
    // A start-up question is not shown over a prompt being written.
    useEffect(() => {
        gate?.setComposerProbe(() => stateRef.current.editor.text !== "");
    }, [gate]);

    const onKey = useCallback(
        (event: KeyEvent) => {
            if (isAppKey(event)) return;
            const p = propsRef.current;
            if (gate ? gate.owner() !== "composer" : !p.active) return;
            // Esc while busy interrupts (the App does it) unless it closes something here.
            const escape = event.type === "key" && event.name === "escape";
            if (escape && p.isBusy?.() && !wantsEscape()) return;
            const { history, suggest, slash } = p;
            if (p.vim) {
                const undo = (s: ComposerState): ComposerState =>
                    composerKey(s, CTRL_Z, suggest, slash).state;
                const taken = vimKey(stateRef.current, vimRef.current, event, undo);
                if (taken.vim !== vimRef.current) changeVim(taken.vim);
                if (taken.state !== stateRef.current) set(taken.state);
                if (taken.pass === null) {
                    gate?.typed();
                    return;
                }
                event = taken.pass;
            }
            const current = stateRef.current;
            if (
                event.type === "key" &&
                event.name === "up" &&
                !event.shift &&
                current.editor.text === "" &&
                current.search === null &&
                current.paste === null
            ) {
                const taken = p.onUnqueue?.();
                if (taken) {
                    gate?.typed();
                    set(withTakenBack(current, taken.text, taken.attachments));
                    return;
                }
            }
            // The store's prompts (loaded, sent, or `north "PROMPT"`) before Up or Ctrl+R reads them.
            const before = history ? withHistory(current, history.entries()) : current;
            const width = wrapWidth(Math.max(1, p.width - 2));
            const result = composerKey(before, event, suggest, slash, width);
            if (result.effect?.type === "submit") {
                // The next prompt starts in insert mode.
                if (vimRef.current.mode !== "insert") {
                    changeVim({ ...VIM_INSERT, register: vimRef.current.register });
                }
                const { text, attachments } = result.effect;
                // Not taken: keep the text in the composer, and out of the history.
                if (p.onSubmit(text, attachments) === false) return;
                // Taken, so a question yielding to typing goes; then the Enter decided.
                gate?.typed();
                gate?.decided();
                if (history) {
                    history.add(text);
                    result.state = withHistory(result.state, history.entries());
                }
            } else gate?.typed();
            set(result.state);
            if (result.effect?.type === "toggle-mode") p.onToggleMode();
            if (result.effect?.type === "rewind") p.onRewind?.();
        },
        [gate, set, changeVim, wantsEscape]
    );
    useRawInput(onKey, active && !props.control);

    if (props.control) {
        props.control.current = {
            key: onKey,
            clear() {
                const current = stateRef.current;
                let cleared = clearComposer(current);
                if (!cleared) return false;
                // Kept with the sent prompts: a Ctrl+C that exits right after loses nothing.
                const history = propsRef.current.history;
                if (history) {
                    history.add(clearedText(current));
                    cleared = withHistory(cleared, history.entries());
                }
                set(cleared);
                return true;
            },
            wantsEscape,
            isEmpty: () => {
                const s = stateRef.current;
                return s.editor.text === "" && s.search === null && s.paste === null;
            },
            takeBack: (text, attachments) =>
                set(withTakenBack(stateRef.current, text, attachments)),
            expandPaste() {
                const expanded = expandChips(stateRef.current);
                if (expanded) set(expanded);
                return expanded !== null;
            },
            draftText: () => draftText(stateRef.current),
            replaceDraft: (text) => set(withEditedDraft(stateRef.current, text)),
            attachImage: (path) => set(withAttachedImage(stateRef.current, path)),
        };
    }

    // Esc Esc means two presses the composer saw in a row: a review or a run in between starts over.
    const armedOff = !active || busy;
    useEffect(() => {
        if (!armedOff || !stateRef.current.escArmed) return;
        set({ ...stateRef.current, escArmed: false });
    }, [armedOff, set]);

    const draft = props.draft;
    useEffect(() => {
        if (draft) set(withDraft(stateRef.current, draft.text));
    }, [draft, set]);

    // The first @ builds the file index; show the matches once it is ready.
    const waiting = state.suggestions !== null && state.suggestions.items === null;
    useEffect(() => {
        if (!waiting || !props.whenSuggestionsReady) return;
        let live = true;
        void props.whenSuggestionsReady().then(() => {
            if (live)
                setState((s) =>
                    refreshSuggestions(s, propsRef.current.suggest, propsRef.current.slash)
                );
        });
        return () => {
            live = false;
        };
    }, [waiting, props.whenSuggestionsReady, suggest]);

    const inner = Math.max(1, width - 2);
    const search = active ? state.search : null;
    const hints: string[] = [];
    let layout;
    if (search) {
        // The match with the query highlighted (the draft until something matched).
        const shown =
            search.match === null ? search.draft.text : (state.history[search.match] ?? "");
        const range = matchRange(shown, search.query) ?? undefined;
        const lines = Math.max(1, props.maxLines - 1);
        layout = layoutComposer(editorOf(shown), inner, lines, false, range);
    } else {
        const chips = chipLabels(state.editor.text, state.pastes);
        layout = layoutComposer(state.editor, inner, props.maxLines, active, undefined, chips);
        if (chips.size > 0 && active && !busy) hints.push("Ctrl+T opens the paste");
    }
    const badge = ` ${mode} `;
    const rule = "─".repeat(Math.max(0, width - badge.length - 2));
    if (props.notice) hints.push(props.notice);
    else if (active && !search && memoryNoteOf(state.editor.text) !== undefined)
        hints.push(MEMORY_NOTE_HINT);
    if (reviewing) hints.push("answer the review above");
    else if (busy && props.vim && vim.mode === "insert") {
        // Esc is vim's here: it takes two to interrupt.
        hints.push("Esc Esc or Ctrl+C to cancel · Enter queues a message");
    } else if (busy) hints.push("Esc or Ctrl+C to cancel · Enter queues a message");
    else if (search) hints.push("Ctrl+R older · Enter edit · Esc cancel");
    else if (state.escArmed && active && props.onRewind) hints.push("Esc again to rewind");
    if (active && !search && state.editor.text.trimStart().startsWith("!")) {
        hints.push("! runs a shell command (no review; deny rules and the sandbox apply)");
    }
    if (props.vim && active && !search) hints.unshift(vimModeLabel(vim));
    if (state.attachments.length > 0) {
        const n = state.attachments.length;
        hints.push(`📎 ${n} ${n === 1 ? "file" : "files"} attached`);
    }
    const placeholder = state.editor.text === "" && !busy && !reviewing && !search;
    return (
        <Box flexDirection="column" flexShrink={0} width={width}>
            {props.queued ? <QueuedLine text={props.queued} width={width} /> : null}
            <Text>
                <Text color={theme.dim}>{rule}</Text>
                <Text color={theme[MODE_COLORS[mode]]} bold>
                    {badge}
                </Text>
                <Text color={theme.dim}>──</Text>
            </Text>
            {active ? <Suggestions state={state} width={width} /> : null}
            {search ? <SearchLabel search={search} /> : null}
            {layout.above > 0 ? <MoreLines count={layout.above} arrow="↑" /> : null}
            {layout.lines.map((line, i) => (
                <Text key={i} dimColor={!active} wrap="truncate-end">
                    <Text color={theme.accent}>{i === 0 ? "❯ " : "  "}</Text>
                    {line}
                    {placeholder && i === 0 ? (
                        <Text color={theme.dim}>
                            {" "}
                            Enter to send · Ctrl+J newline · @ file · Tab mode
                        </Text>
                    ) : null}
                </Text>
            ))}
            {layout.below > 0 ? <MoreLines count={layout.below} arrow="↓" /> : null}
            {hints.length > 0 ? <Text color={theme.dim}>{hints.join(" · ")}</Text> : null}
        </Box>
    );
}

export const Composer = memo(ComposerView);
