/**
 * `/ps`: the session's background processes, one row each (id, state, age,
 * exit status, output size, command). ↑/↓ choose one, Enter shows its last
 * lines (a terminal program: its screen) under the list and hides them
 * again, S stops it, Esc closes the view. The list and the output are read
 * again when a process starts or ends and every second while the view is
 * open, through the engine's ops (the "view" reader never moves the model's
 * cursor).
 */
import { Box, Text } from "ink";
import { memo, useCallback, useEffect, useRef, useState } from "react";
import type { ReactElement } from "react";
import { processRow } from "../../commands/process-listing";
import type { ProcessId, ProcessInfo } from "../../tools/processes/types";
import { sanitizeLine } from "../../util/display-line";
import { useInputKeys } from "../hooks/use-raw-input";
import { useTicker } from "../hooks/use-ticker";
import type { ProcessesPort } from "../processes-port";
import { useTheme } from "../use-theme";
import { windowStart } from "./picker-review";

/** Shown while the view takes keys (tests wait for it). */
export const PROCESSES_HINT = "↑/↓ choose · Enter output · S stop · Esc close";

/** How often an open view reads the list (ages, sizes) and the shown output again. */
const REFRESH_MS = 1000;
/** Rows of the list shown at once. */
const LIST_ROWS = 6;

export interface ProcessesDialogProps {
    /** The list as `/ps` got it; read again while the view is open. */
    initial: readonly ProcessInfo[];
    port: ProcessesPort;
    /** Total columns. */
    width: number;
    /** Rows the view may take, border included. */
    maxRows: number;
    /** Takes keys (no review is waiting). */
    active: boolean;
    onClose(): void;
}

interface ShownOutput {
    id: ProcessId;
    lines: string[];
    /** A terminal program's screen rather than its last lines. */
    screen: boolean;
    error?: string;
}

function ProcessesDialogImpl(props: ProcessesDialogProps): ReactElement {
    const theme = useTheme();
    const { port, width, maxRows, active, onClose } = props;
    const [processes, setProcesses] = useState<readonly ProcessInfo[]>(props.initial);
    const [selected, setSelected] = useState(0);
    const [output, setOutput] = useState<ShownOutput | null>(null);
    const [message, setMessage] = useState<{ text: string; isError: boolean } | null>(null);
    // Keys of one input string arrive before a render: read through refs.
    const selectedRef = useRef(0);
    const processesRef = useRef(processes);
    processesRef.current = processes;
    const outputIdRef = useRef<ProcessId | null>(null);
    const alive = useRef(true);
    useEffect(
        () => () => {
            alive.current = false;
        },
        []
    );

    const listRows = Math.min(LIST_ROWS, Math.max(1, processes.length));
    // Border, title, list, output heading, message.
    const outputRows = Math.max(3, maxRows - 2 - 1 - listRows - 1 - 1);

    const readOutput = useCallback(
        async (id: ProcessId) => {
            const reply = await port.output(id, outputRows).catch((error: unknown) => ({
                ok: false as const,
                error: (error as Error).message,
            }));
            if (!alive.current || outputIdRef.current !== id) return;
            setOutput(
                reply.ok
                    ? {
                          id,
                          lines: reply.result.text.split("\n"),
                          screen: reply.result.screen === true,
                      }
                    : { id, lines: [], screen: false, error: reply.error }
            );
        },
        [port, outputRows]
    );
    const refresh = useCallback(async () => {
        const list = await port.list().catch(() => null);
        if (!alive.current || list === null) return;
        setProcesses(list);
        const shown = outputIdRef.current;
        if (shown !== null) await readOutput(shown);
    }, [port, readOutput]);

    useEffect(() => port.subscribe(() => void refresh()), [port, refresh]);
    const tick = useTicker(true, REFRESH_MS);
    useEffect(() => {
        if (tick > 0) void refresh();
    }, [tick, refresh]);

    const move = (to: number): void => {
        selectedRef.current = to;
        setSelected(to);
    };
    const toggleOutput = (info: ProcessInfo): void => {
        if (outputIdRef.current === info.id) {
            outputIdRef.current = null;
            setOutput(null);
            return;
        }
        outputIdRef.current = info.id;
        setOutput({ id: info.id, lines: [], screen: info.tty });
        void readOutput(info.id);
    };
    const stop = (info: ProcessInfo): void => {
        if (info.state !== "running") {
            setMessage({ text: `${info.id} has already ended`, isError: false });
            return;
        }
        setMessage({ text: `stopping ${info.id}…`, isError: false });
        void port.stop(info.id).then(
            (outcome) => {
                if (!alive.current) return;
                setMessage({ text: outcome.message, isError: outcome.isError === true });
                void refresh();
            },
            (error: unknown) => {
                if (alive.current) setMessage({ text: (error as Error).message, isError: true });
            }
        );
    };
    useInputKeys(
        (input, key) => {
            const list = processesRef.current;
            const at = Math.min(selectedRef.current, Math.max(0, list.length - 1));
            const info = list[at];
            if (key.escape) return onClose();
            if (key.upArrow) return move(Math.max(0, at - 1));
            if (key.downArrow) return move(Math.min(Math.max(0, list.length - 1), at + 1));
            if (!info || key.ctrl || key.meta) return;
            if (key.return) return toggleOutput(info);
            if (input === "s" || input === "S") stop(info);
        },
        { isActive: active }
    );

    const inner = Math.max(10, width - 4);
    const index = Math.min(selected, Math.max(0, processes.length - 1));
    const start = windowStart(index, processes.length, listRows);
    const now = Date.now();
    const running = processes.filter((p) => p.state === "running").length;
    const shown = output ? processes.find((p) => p.id === output.id) : undefined;
    const outputLines = output ? output.lines.slice(-outputRows) : [];
    return (
        <Box
            flexDirection="column"
            borderStyle="round"
            borderColor={theme.border}
            paddingX={1}
            width={width}
            flexShrink={0}
        >
            <Box width={inner} justifyContent="space-between">
                <Text bold wrap="truncate-end">
                    Processes ({running} running)
                </Text>
                <Text color={theme.dim}>{active ? PROCESSES_HINT : "Esc close"}</Text>
            </Box>
            {processes.length === 0 ? (
                <Text color={theme.dim}>No background processes.</Text>
            ) : null}
            {processes.slice(start, start + listRows).map((info, i) => {
                const current = start + i === index;
                return (
                    <Text key={info.id} wrap="truncate-end">
                        <Text color={current ? theme.accent : undefined} bold={current}>
                            {current ? "› " : "  "}
                        </Text>
                        <Text color={info.state === "running" ? theme.toolRunning : theme.dim}>
                            {sanitizeLine(processRow(info, now, inner))}
                        </Text>
                    </Text>
                );
            })}
            {output ? (
                <Text color={theme.dim} wrap="truncate-end">
                    {`── ${output.id} ${output.screen ? "screen" : `output: last ${outputRows} lines`}${shown?.spillPath ? ` · all of it: ${shown.spillPath}` : ""} ──`}
                </Text>
            ) : null}
            {output?.error ? <Text color={theme.error}>{sanitizeLine(output.error)}</Text> : null}
            {output && !output.error && outputLines.join("").trim() === "" ? (
                <Text color={theme.dim}>(no output yet)</Text>
            ) : null}
            {outputLines.map((line, i) => (
                <Text key={`o-${i}`} wrap="truncate-end">
                    {sanitizeLine(line) || " "}
                </Text>
            ))}
            {message ? (
                <Text color={message.isError ? theme.error : theme.dim} wrap="truncate-end">
                    {sanitizeLine(message.text)}
                </Text>
            ) : null}
        </Box>
    );
}

export const ProcessesDialog = memo(ProcessesDialogImpl);
