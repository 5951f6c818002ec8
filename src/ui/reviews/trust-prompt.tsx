/**
 * A project ships configuration that runs code or grants approvals (MCP
 * servers, hooks, an allowlist, auto-approval): trust it? Shown before any of
 * it runs, with each command as configured, then the review menu: trust it
 * (remembered until those files change), or start without it (asked again
 * next time; Esc goes there).
 */
import { Box, Text } from "ink";
import { memo, useMemo } from "react";
import type { ReactElement } from "react";
import type { KeyGate } from "../input/key-gate";
import { useTheme } from "../use-theme";
import type { TrustPromptInventory } from "../review-types";
import { sanitizeText } from "../render/sanitize";
import { ReviewMenu } from "./review-menu";
import { trustOptions } from "../../agent/approval-menu";

export interface TrustPromptProps {
    inventory: TrustPromptInventory;
    width: number;
    /** Rows available for the list; it is cut to fit, saying how many more there are. */
    maxRows?: number;
    borderColor?: string;
    active?: boolean;
    /** The App's key gate (the menu's keys count only while it gives them). */
    gate?: KeyGate;
    /** true: trusted; false: start without it. */
    onAnswer?: (answer: boolean) => void;
}

const KIND_LABELS: Record<string, string> = {
    mcp: "MCP server",
    hook: "hook",
    status: "status line",
    approval: "approval",
    unreadable: "unreadable",
    style: "output style",
};

/** Each command is shown whole (wrapped) up to this length, so one cannot push the keys off screen. */
const MAX_ITEM_CHARS = 400;

function shorten(text: string): string {
    return text.length > MAX_ITEM_CHARS ? `${text.slice(0, MAX_ITEM_CHARS - 1)}…` : text;
}

function TrustPromptImpl(props: TrustPromptProps): ReactElement {
    const theme = useTheme();
    const { width, inventory, active = false } = props;
    const options = useMemo(() => trustOptions(), []);
    const lines = inventory.items.map((item) => ({
        item,
        text: shorten(sanitizeText(item.text)),
    }));
    // Keep whole items while they fit, one row kept back for "… and N more".
    const columns = Math.max(10, width - 4);
    const budget = props.maxRows ?? Number.POSITIVE_INFINITY;
    const shown: typeof lines = [];
    let used = 0;
    for (const line of lines) {
        const label = (KIND_LABELS[line.item.kind] ?? line.item.kind) + line.item.source;
        const rows = Math.ceil((4 + label.length + line.text.length) / columns);
        const reserve = shown.length + 1 < lines.length ? 1 : 0;
        if (shown.length > 0 && used + rows + reserve > budget) break;
        shown.push(line);
        used += rows;
    }
    const hidden = lines.length - shown.length;
    return (
        <Box
            flexDirection="column"
            borderStyle="round"
            borderColor={props.borderColor ?? theme.warning}
            paddingX={1}
            width={width}
            flexShrink={0}
        >
            <Text bold wrap="truncate-end">
                Trust this project? {sanitizeText(inventory.repoRoot)}
            </Text>
            <Text wrap="wrap" color={theme.dim}>
                It ships configuration that runs commands or approves them for you. Nothing of it
                runs until you trust it; you are asked again when these files change.
            </Text>
            {shown.map(({ item, text }, i) => (
                <Text key={i} wrap="wrap">
                    {"  "}
                    <Text color={theme.warning}>{KIND_LABELS[item.kind] ?? item.kind}</Text>{" "}
                    <Text color={theme.dim}>{item.source}</Text> {text}
                </Text>
            ))}
            {hidden > 0 ? <Text color={theme.dim}>{`  … and ${hidden} more`}</Text> : null}
            <ReviewMenu
                options={options}
                active={active}
                gate={props.gate}
                onAnswer={(answer) => props.onAnswer?.(answer)}
            />
        </Box>
    );
}

export const TrustPrompt = memo(TrustPromptImpl);
