/**
 * The model's to-do list (todo_write), pinned above the composer as a live
 * checklist. The markers differ in shape, not only colour, so NO_COLOR keeps
 * them apart; a list with every item done folds to one line.
 */
import { Box, Text } from "ink";
import { memo } from "react";
import type { ReactElement } from "react";
import type { TodoItem, TodoStatus } from "../tools/todo-write";
import { sanitizeText } from "./render/sanitize";
import { useTheme } from "./use-theme";

export const TODO_MARKERS: Record<TodoStatus, string> = {
    pending: "☐",
    in_progress: "◐",
    done: "☑",
};

/** Rows the checklist takes at most on a terminal of `rows` rows (its header included). */
export function todoChecklistRows(items: readonly TodoItem[], rows: number): number {
    if (items.length === 0) return 0;
    if (items.every((i) => i.status === "done")) return 1;
    return Math.min(items.length + 1, Math.max(3, Math.min(10, Math.floor(rows / 4))));
}

/**
 * The items to show in `room` rows: those around the first unfinished one,
 * so the work under way stays in view in a long list.
 */
function visibleItems(items: readonly TodoItem[], room: number): { from: number; to: number } {
    if (items.length <= room) return { from: 0, to: items.length };
    const shown = room - 1; // one row says how many are hidden
    const current = Math.max(
        0,
        items.findIndex((i) => i.status !== "done")
    );
    const from = Math.max(0, Math.min(current - 1, items.length - shown));
    return { from, to: from + shown };
}

export interface TodoChecklistProps {
    items: readonly TodoItem[];
    width: number;
    /** Rows at most, header included (`todoChecklistRows`). */
    maxRows: number;
}

function TodoChecklistView({ items, width, maxRows }: TodoChecklistProps): ReactElement | null {
    const theme = useTheme();
    if (items.length === 0) return null;
    const done = items.filter((i) => i.status === "done").length;
    if (done === items.length) {
        return (
            <Box flexShrink={0} width={width}>
                <Text wrap="truncate-end" color={theme.dim}>
                    {TODO_MARKERS.done} To-do list: all {items.length} done
                </Text>
            </Box>
        );
    }
    const { from, to } = visibleItems(items, Math.max(1, maxRows - 1));
    const hidden = items.length - (to - from);
    return (
        <Box flexDirection="column" flexShrink={0} width={width}>
            <Text wrap="truncate-end">
                <Text bold>To-do</Text>
                <Text color={theme.dim}>
                    {" "}
                    · {done}/{items.length} done
                </Text>
            </Text>
            {items.slice(from, to).map((item, i) => (
                <Text
                    key={from + i}
                    wrap="truncate-end"
                    color={
                        item.status === "done"
                            ? theme.dim
                            : item.status === "in_progress"
                              ? theme.accent
                              : undefined
                    }
                    bold={item.status === "in_progress"}
                    strikethrough={item.status === "done"}
                >
                    {TODO_MARKERS[item.status]} {sanitizeText(item.content.replace(/\s+/g, " "))}
                </Text>
            ))}
            {hidden > 0 ? (
                <Text color={theme.dim} wrap="truncate-end">
                    … {hidden} more
                </Text>
            ) : null}
        </Box>
    );
}

export const TodoChecklist = memo(TodoChecklistView);
