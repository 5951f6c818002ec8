/**
 * The plan the user accepted, pinned above the composer while the request
 * carries it out, so its steps stay in view however far the work scrolls.
 * The whole plan is in the transcript too.
 */
import { Box, Text } from "ink";
import { memo, useMemo } from "react";
import type { ReactElement } from "react";
import type { Ansi } from "./render/ansi";
import { renderMarkdown } from "./render/markdown";
import { sanitizeText } from "./render/sanitize";
import { useTheme } from "./use-theme";

/** Rows the pin takes at most on a terminal of `rows` rows (its header included). */
export function planPinRows(rows: number): number {
    return Math.max(3, Math.min(8, Math.floor(rows / 5)));
}

export interface PlanPinProps {
    plan: string;
    width: number;
    /** Rows at most, header included. */
    maxRows: number;
    ansi: Ansi;
}

function PlanPinView({ plan, width, maxRows, ansi }: PlanPinProps): ReactElement {
    const theme = useTheme();
    const lines = useMemo(
        () => renderMarkdown(sanitizeText(plan), width, ansi).filter((l) => l.trim() !== ""),
        [plan, width, ansi]
    );
    const room = Math.max(1, maxRows - 1);
    const cut = lines.length > room;
    const shown = lines.slice(0, cut ? room - 1 : room);
    const more = lines.length - shown.length;
    return (
        <Box flexDirection="column" flexShrink={0} width={width}>
            <Text wrap="truncate-end">
                <Text color={theme.accent}>◆ </Text>
                <Text bold>Accepted plan</Text>
                <Text color={theme.dim}> · being carried out</Text>
            </Text>
            {shown.map((line, i) => (
                <Text key={i} wrap="truncate-end">
                    {line}
                </Text>
            ))}
            {cut ? (
                <Text color={theme.dim} wrap="truncate-end">
                    … {more} more line{more === 1 ? "" : "s"} (the whole plan is in the transcript)
                </Text>
            ) : null}
        </Box>
    );
}

export const PlanPin = memo(PlanPinView);
