/**
 * `/plugin` in the chat: three tabs, Installed (Space enables or disables,
 * u updates, r removes after a yes), Available (Enter shows what the plugin
 * may run, then Install or Cancel) and Marketplaces (a adds one from a text
 * field, u updates, r removes). Tab or ←/→ switch tabs, Esc closes. Every
 * action is an engine op; the list is read again after each. Only the rows
 * on screen are drawn.
 */
import { Box, Text } from "ink";
import { memo, useEffect, useRef, useState } from "react";
import type { ReactElement } from "react";
import type { EngineHostPort, Outcome, PluginsListing } from "../../agent/protocol";
import { sanitizeLine } from "../../util/display-line";
import { useInputKeys } from "../hooks/use-raw-input";
import { windowStart } from "../reviews/picker-review";
import { useTheme } from "../use-theme";

export type PluginsPort = Pick<EngineHostPort, "submit">;

export const PLUGINS_TABS = ["Installed", "Available", "Marketplaces"] as const;
type Tab = 0 | 1 | 2;

/** Shown while the view takes keys (tests wait for them). */
export const PLUGINS_HINTS: Record<Tab, string> = {
    0: "Tab switch · Space enable/disable · u update · r remove · Esc close",
    1: "Tab switch · Enter review and install · Esc close",
    2: "Tab switch · a add · u update · r remove · Esc close",
};
export const CONFIRM_HINT = "←/→ choose · Enter confirm · y install · Esc cancel";

interface Row {
    key: string;
    label: string;
    hint?: string;
}

type Mode =
    | { kind: "list" }
    | { kind: "busy"; text: string }
    | {
          kind: "confirm";
          token: string;
          id: string;
          verb: "Install" | "Update";
          lines: string[];
          /** 0: Cancel (the default), 1: Install. */
          choice: 0 | 1;
      }
    | { kind: "remove"; what: "plugin" | "marketplace"; name: string }
    | { kind: "add"; text: string };

export interface PluginsDialogProps {
    initial: PluginsListing;
    port: PluginsPort;
    width: number;
    /** Rows the view may take, border included. */
    maxRows: number;
    active: boolean;
    onClose(): void;
}

function rowsOf(listing: PluginsListing, tab: Tab): Row[] {
    if (tab === 0) {
        return listing.installed.map((p) => ({
            key: p.id,
            label: `${p.enabled && !p.held ? "●" : "○"} ${p.id}${p.version ? ` ${p.version}` : ""}`,
            hint: p.held ? `held: ${p.held}` : p.enabled ? "enabled" : "disabled",
        }));
    }
    if (tab === 1) {
        return listing.available.map((a) => ({
            key: a.id,
            label: `${a.installed ? "✓" : " "} ${a.id}`,
            hint: [a.installed ? "installed" : "", a.description ?? ""].filter(Boolean).join(" · "),
        }));
    }
    return listing.marketplaces.map((m) => ({
        key: m.name,
        label: m.name,
        hint: `${m.source}${m.commit ? ` @ ${m.commit.slice(0, 12)}` : ""}`,
    }));
}

const EMPTY: Record<Tab, string> = {
    0: "No plugins installed: see Available.",
    1: "No plugins to install: add a marketplace (Marketplaces, a).",
    2: "No marketplaces: press a to add one (owner/repo, a git URL or a path).",
};

function PluginsDialogImpl(props: PluginsDialogProps): ReactElement {
    const theme = useTheme();
    const { port, width, maxRows, active, onClose } = props;
    const [listing, setListing] = useState(props.initial);
    const [tab, setTab] = useState<Tab>(0);
    const [selected, setSelected] = useState<[number, number, number]>([0, 0, 0]);
    const [mode, setMode] = useState<Mode>({ kind: "list" });
    const [message, setMessage] = useState<{ text: string; isError: boolean } | null>(null);
    // Keys of one input string arrive before a render: read through refs.
    const live = useRef({ listing, tab, selected, mode });
    live.current = { listing, tab, selected, mode };
    const alive = useRef(true);
    useEffect(
        () => () => {
            alive.current = false;
            // Closed (Ctrl+C) with the question open: the staged copy goes now.
            const left = live.current.mode;
            if (left.kind === "confirm") {
                void port
                    .submit({ type: "plugin_discard", token: left.token })
                    .catch(() => undefined);
            }
        },
        [port]
    );

    const setModeNow = (next: Mode): void => {
        live.current.mode = next;
        setMode(next);
    };
    const say = (outcome: Outcome): void =>
        setMessage({ text: outcome.message, isError: outcome.isError === true });
    const refresh = async (): Promise<void> => {
        const next = await port.submit({ type: "plugins" });
        if (alive.current) setListing(next);
    };
    /** Runs an op that changes something, says its outcome and reads the list again. */
    const act = (busy: string, run: () => Promise<Outcome>): void => {
        setModeNow({ kind: "busy", text: busy });
        setMessage(null);
        void run()
            .then(say, (error: unknown) =>
                say({ message: (error as Error).message, isError: true })
            )
            .then(refresh)
            .finally(() => {
                if (alive.current && live.current.mode.kind === "busy")
                    setModeNow({ kind: "list" });
            });
    };
    const prepare = (id: string, update: boolean): void => {
        setModeNow({ kind: "busy", text: `Reading ${id} (nothing of it runs)…` });
        setMessage(null);
        void port.submit({ type: "plugin_prepare", id, update }).then(
            (reply) => {
                if (!alive.current) return;
                if (!reply.ok) {
                    say({ message: reply.error, isError: true });
                    return setModeNow({ kind: "list" });
                }
                if ("upToDate" in reply) {
                    say({ message: reply.message });
                    return setModeNow({ kind: "list" });
                }
                if (!reply.needsApproval) {
                    act(`Updating ${id}…`, () =>
                        port.submit({ type: "plugin_commit", token: reply.token })
                    );
                    return;
                }
                setModeNow({
                    kind: "confirm",
                    token: reply.token,
                    id: reply.id,
                    verb: update ? "Update" : "Install",
                    lines: reply.lines,
                    choice: 0,
                });
            },
            (error: unknown) => {
                say({ message: (error as Error).message, isError: true });
                setModeNow({ kind: "list" });
            }
        );
    };
    const answer = (install: boolean): void => {
        const current = live.current.mode;
        if (current.kind !== "confirm") return;
        const { token, id } = current;
        if (install) act(`Installing ${id}…`, () => port.submit({ type: "plugin_commit", token }));
        else act("Cancelling…", () => port.submit({ type: "plugin_discard", token }));
    };

    useInputKeys(
        (input, key) => {
            const { listing: now, tab: at, selected: marks, mode: current } = live.current;
            if (current.kind === "busy") {
                if (key.escape) onClose();
                return;
            }
            if (current.kind === "confirm") {
                if (key.escape || input === "n" || input === "N") return answer(false);
                if (input === "y" || input === "Y") return answer(true);
                if (key.leftArrow || key.rightArrow || key.tab) {
                    return setModeNow({ ...current, choice: current.choice === 0 ? 1 : 0 });
                }
                if (key.return) return answer(current.choice === 1);
                return;
            }
            if (current.kind === "remove") {
                if (input === "y" || input === "Y") {
                    const { what, name } = current;
                    return act(`Removing ${name}…`, () =>
                        what === "plugin"
                            ? port.submit({ type: "plugin_remove", id: name })
                            : port.submit({ type: "marketplace_remove", name })
                    );
                }
                if (key.escape || input === "n" || input === "N" || key.return) {
                    setMessage({ text: `${current.name} kept.`, isError: false });
                    return setModeNow({ kind: "list" });
                }
                return;
            }
            if (current.kind === "add") {
                if (key.escape) return setModeNow({ kind: "list" });
                if (key.return) {
                    const source = current.text.trim();
                    if (source === "") return setModeNow({ kind: "list" });
                    return act(`Adding ${source} (a clone: nothing of it runs)…`, () =>
                        port.submit({ type: "marketplace_add", source })
                    );
                }
                if (key.backspace || key.delete) {
                    return setModeNow({
                        kind: "add",
                        text: [...current.text].slice(0, -1).join(""),
                    });
                }
                if (!key.ctrl && !key.meta && input !== "" && !/[\p{Cc}]/u.test(input)) {
                    return setModeNow({ kind: "add", text: current.text + input });
                }
                return;
            }
            if (key.escape) return onClose();
            if (key.tab || key.leftArrow || key.rightArrow) {
                const back = key.leftArrow || (key.tab && key.shift);
                const next = ((at + (back ? 2 : 1)) % 3) as Tab;
                live.current.tab = next;
                setTab(next);
                setMessage(null);
                return;
            }
            const rows = rowsOf(now, at);
            const index = Math.min(marks[at], Math.max(0, rows.length - 1));
            const move = (to: number): void => {
                const next: [number, number, number] = [...marks];
                next[at] = to;
                live.current.selected = next;
                setSelected(next);
            };
            if (key.upArrow) return move(Math.max(0, index - 1));
            if (key.downArrow) return move(Math.min(Math.max(0, rows.length - 1), index + 1));
            if (at === 2 && (input === "a" || input === "A"))
                return setModeNow({ kind: "add", text: "" });
            const row = rows[index];
            if (!row || key.ctrl || key.meta) return;
            if (at === 0) {
                const plugin = now.installed.find((p) => p.id === row.key);
                if (!plugin) return;
                if (input === " ") {
                    const enabled = !plugin.enabled;
                    return act(`${enabled ? "Enabling" : "Disabling"} ${plugin.id}…`, () =>
                        port.submit({ type: "plugin_set_enabled", id: plugin.id, enabled })
                    );
                }
                if (input === "u" || input === "U") return prepare(plugin.id, true);
                if (input === "r" || input === "R")
                    return setModeNow({ kind: "remove", what: "plugin", name: plugin.id });
                return;
            }
            if (at === 1) {
                if (key.return) return prepare(row.key, false);
                return;
            }
            if (input === "u" || input === "U")
                return act(`Updating ${row.key}…`, () =>
                    port.submit({ type: "marketplace_update", name: row.key })
                );
            if (input === "r" || input === "R")
                setModeNow({ kind: "remove", what: "marketplace", name: row.key });
        },
        { isActive: active }
    );

    const inner = Math.max(10, width - 4);
    // Border (2), tabs, hint, message.
    const bodyRows = Math.max(3, maxRows - 5);
    const frame = (children: ReactElement | ReactElement[]): ReactElement => (
        <Box
            flexDirection="column"
            borderStyle="round"
            borderColor={theme.border}
            paddingX={1}
            width={width}
            flexShrink={0}
        >
            {children}
            {message ? (
                <Text color={message.isError ? theme.error : theme.dim} wrap="wrap">
                    {sanitizeLine(message.text)}
                </Text>
            ) : null}
        </Box>
    );

    if (mode.kind === "confirm") {
        const shown = mode.lines.slice(0, Math.max(1, bodyRows - 2));
        const more = mode.lines.length - shown.length;
        const button = (label: string, on: boolean): ReactElement => (
            <Text color={on ? theme.accent : undefined} bold={on} inverse={on}>
                {` ${label} `}
            </Text>
        );
        return frame([
            <Text key="t" bold wrap="truncate-end">
                {sanitizeLine(`${mode.verb} ${mode.id}? It may run:`)}
            </Text>,
            ...shown.map((line, i) => (
                <Text key={`l-${i}`} color={theme.warning} wrap="truncate-end">
                    {sanitizeLine(line) || " "}
                </Text>
            )),
            ...(more > 0
                ? [
                      <Text key="more" color={theme.dim}>
                          … {more} more lines: `north plugin show {mode.id}` lists them all
                      </Text>,
                  ]
                : []),
            <Box key="b" gap={2}>
                {button("Cancel", mode.choice === 0)}
                {button(mode.verb, mode.choice === 1)}
            </Box>,
            <Text key="h" color={theme.dim}>
                {CONFIRM_HINT}
            </Text>,
        ]);
    }

    const rows = rowsOf(listing, tab);
    const index = Math.min(selected[tab], Math.max(0, rows.length - 1));
    const listRows = Math.max(1, bodyRows - 1);
    const start = windowStart(index, rows.length, listRows);
    const counts = [
        listing.installed.length,
        listing.available.length,
        listing.marketplaces.length,
    ];
    return frame([
        <Box key="tabs" width={inner} gap={2}>
            <Text bold>Plugins</Text>
            {PLUGINS_TABS.map((name, i) => (
                <Text
                    key={name}
                    color={i === tab ? theme.accent : theme.dim}
                    bold={i === tab}
                    underline={i === tab}
                >
                    {`${name} (${counts[i]})`}
                </Text>
            ))}
        </Box>,
        ...(rows.length === 0
            ? [
                  <Text key="empty" color={theme.dim}>
                      {EMPTY[tab]}
                  </Text>,
              ]
            : []),
        ...(start > 0
            ? [
                  <Text key="up" color={theme.dim}>
                      ↑ {start} more
                  </Text>,
              ]
            : []),
        ...rows.slice(start, start + listRows).map((row, i) => {
            const current = start + i === index;
            return (
                <Text key={row.key} wrap="truncate-end">
                    <Text color={current ? theme.accent : undefined} bold={current}>
                        {current ? "› " : "  "}
                        {sanitizeLine(row.label)}
                    </Text>
                    {row.hint ? <Text color={theme.dim}> {sanitizeLine(row.hint)}</Text> : null}
                </Text>
            );
        }),
        ...(start + listRows < rows.length
            ? [
                  <Text key="down" color={theme.dim}>
                      ↓ {rows.length - start - listRows} more
                  </Text>,
              ]
            : []),
        ...listing.errors.map((error, i) => (
            <Text key={`e-${i}`} color={theme.warning} wrap="truncate-end">
                {sanitizeLine(`warning: ${error}`)}
            </Text>
        )),
        mode.kind === "remove" ? (
            <Text key="mode" color={theme.warning}>
                {sanitizeLine(`Remove ${mode.name}? y removes · n or Esc keeps it`)}
            </Text>
        ) : mode.kind === "add" ? (
            <Text key="mode" wrap="truncate-end">
                <Text color={theme.accent}>Add marketplace: </Text>
                {sanitizeLine(mode.text)}
                <Text inverse> </Text>
                <Text color={theme.dim}> Enter add · Esc cancel</Text>
            </Text>
        ) : mode.kind === "busy" ? (
            <Text key="mode" color={theme.dim}>
                {sanitizeLine(mode.text)}
            </Text>
        ) : (
            <Text key="mode" color={theme.dim}>
                {active ? PLUGINS_HINTS[tab] : "Esc close"}
            </Text>
        ),
    ]);
}

export const PluginsDialog = memo(PluginsDialogImpl);
