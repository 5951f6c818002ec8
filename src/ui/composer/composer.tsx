import { memo, useCallback, useEffect, useRef, useState } from "react";
import type { ReactElement } from "react";
import { Box, Text } from "ink";
import type { Mode } from "../../agent/events";
import type { KeyEvent } from "../input/keys";
import { useRawInput } from "../hooks/use-raw-input";
import { sanitizeText } from "../render/sanitize";
import { layoutComposer } from "./composer-layout";
import { editorOf } from "./editor";
import type { SlashSource } from "./slash-complete";
import {
    type ComposerState,
    type HistorySearch,
    type PromptHistory,
    type SuggestFiles,
    composerKey,
    createComposerState,
    matchRange,
    refreshSuggestions,
    withDraft,
    withHistory,
} from "./composer-state";

export interface ComposerProps {
    width: number;
    /** Most text lines shown; longer text scrolls with the cursor. */
    maxLines: number;
    /** Takes keys (false while a run or a review has the keyboard). */
    active: boolean;
    busy: boolean;
    /** A review is waiting for an answer. */
    reviewing: boolean;
    mode: Mode;
    /** False when the prompt was not taken (a run still going): the text stays. */
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
}

const MAX_SUGGESTIONS = 8;

/** The badge colour of each mode. */
export const MODE_COLORS: Record<Mode, string> = { ask: "cyan", agent: "green", plan: "magenta" };

/** Keys the App keeps for itself whatever the composer does. */
function isAppKey(event: KeyEvent): boolean {
    if (event.type === "chord") return event.ctrl && event.letter === "c";
    return event.type === "key" && (event.name === "pageup" || event.name === "pagedown");
}

function Suggestions(props: { state: ComposerState; width: number }): ReactElement | null {
    const s = props.state.suggestions;
    if (!s) return null;
    if (s.items === null) return <Text dimColor> indexing files…</Text>;
    if (s.items.length === 0) return <Text dimColor> no matching files</Text>;
    const first = Math.max(0, Math.min(s.selected - MAX_SUGGESTIONS + 1, s.items.length));
    const shown = s.items.slice(first, first + MAX_SUGGESTIONS);
    const more = s.items.length - first - shown.length;
    return (
        <Box flexDirection="column">
            {shown.map((item, i) => {
                const selected = first + i === s.selected;
                return (
                    <Text key={item.value} wrap="truncate-end">
                        <Text color={selected ? "cyan" : undefined}>{selected ? "› " : "  "}</Text>
                        <Text bold={selected}>{sanitizeText(item.label)}</Text>
                        {item.hint ? <Text dimColor> {sanitizeText(item.hint)}</Text> : null}
                    </Text>
                );
            })}
            {more > 0 || first > 0 ? (
                <Text dimColor>
                    {"  "}
                    {s.items.length} matches · ↑/↓ choose · Tab inserts · Esc closes
                </Text>
            ) : null}
        </Box>
    );
}

/** The search line: what is searched for, and whether anything older matched. */
function SearchLabel(props: { search: HistorySearch }): ReactElement {
    const { search } = props;
    return (
        <Text wrap="truncate-end">
            <Text color={search.failed ? "yellow" : "cyan"}>
                {search.failed ? "(failed reverse-i-search)" : "(reverse-i-search)"}
            </Text>
            <Text>`{sanitizeText(search.query)}&apos;</Text>
            <Text dimColor>
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
    const { width, active, busy, reviewing, mode, suggest } = props;
    // The saved prompts are read with the first key, not for the first frame.
    const [state, setState] = useState(() => createComposerState());
    const stateRef = useRef(state);
    stateRef.current = state;
    const propsRef = useRef(props);
    propsRef.current = props;

    const onKey = useCallback((event: KeyEvent) => {
        if (isAppKey(event)) return;
        const { history, suggest, slash } = propsRef.current;
        // The store's prompts (loaded, sent, or `north "PROMPT"`) before Up or Ctrl+R reads them.
        const before = history
            ? withHistory(stateRef.current, history.entries())
            : stateRef.current;
        const result = composerKey(before, event, suggest, slash);
        if (result.effect?.type === "submit") {
            const { text, attachments } = result.effect;
            // Not taken: keep the text in the composer, and out of the history.
            if (propsRef.current.onSubmit(text, attachments) === false) return;
            if (history) {
                history.add(text);
                result.state = withHistory(result.state, history.entries());
            }
        }
        stateRef.current = result.state;
        setState(result.state);
        if (result.effect?.type === "toggle-mode") propsRef.current.onToggleMode();
        if (result.effect?.type === "rewind") propsRef.current.onRewind?.();
    }, []);
    useRawInput(onKey, active);

    // Esc Esc means two presses the composer saw in a row: a review or a run in between starts over.
    useEffect(() => {
        if (active || !stateRef.current.escArmed) return;
        const next = { ...stateRef.current, escArmed: false };
        stateRef.current = next;
        setState(next);
    }, [active]);

    const draft = props.draft;
    useEffect(() => {
        if (!draft) return;
        const next = withDraft(stateRef.current, draft.text);
        stateRef.current = next;
        setState(next);
    }, [draft]);

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
    let layout;
    if (search) {
        // The match with the query highlighted (the draft until something matched).
        const shown =
            search.match === null ? search.draft.text : (state.history[search.match] ?? "");
        const range = matchRange(shown, search.query) ?? undefined;
        const lines = Math.max(1, props.maxLines - 1);
        layout = layoutComposer(editorOf(shown), inner, lines, false, range);
    } else layout = layoutComposer(state.editor, inner, props.maxLines, active);
    const badge = ` ${mode} `;
    const rule = "─".repeat(Math.max(0, width - badge.length - 2));
    const hints: string[] = [];
    if (busy) hints.push("Ctrl+C to cancel");
    else if (reviewing) hints.push("answer the review above");
    else if (search) hints.push("Ctrl+R older · Enter edit · Esc cancel");
    else if (state.escArmed && active && props.onRewind) hints.push("Esc again to rewind");
    if (state.attachments.length > 0) {
        const n = state.attachments.length;
        hints.push(`📎 ${n} ${n === 1 ? "file" : "files"} attached`);
    }
    const placeholder = state.editor.text === "" && !busy && !reviewing && !search;
    return (
        <Box flexDirection="column" flexShrink={0} width={width}>
            <Text>
                <Text dimColor>{rule}</Text>
                <Text color={MODE_COLORS[mode]} bold>
                    {badge}
                </Text>
                <Text dimColor>──</Text>
            </Text>
            {active ? <Suggestions state={state} width={width} /> : null}
            {search ? <SearchLabel search={search} /> : null}
            {layout.lines.map((line, i) => (
                <Text key={i} dimColor={!active} wrap="truncate-end">
                    <Text color="cyan">{i === 0 ? "❯ " : "  "}</Text>
                    {line}
                    {placeholder && i === 0 ? (
                        <Text dimColor> Enter to send · Ctrl+J newline · @ file · Tab mode</Text>
                    ) : null}
                </Text>
            ))}
            {hints.length > 0 ? <Text dimColor>{hints.join(" · ")}</Text> : null}
        </Box>
    );
}

export const Composer = memo(ComposerView);
