/**
 * An MCP server's form (elicitation): its message and one row per field.
 * ↑/↓ or Tab move between fields; text and numbers are typed, Space toggles
 * a yes/no, ←/→ choose an option. Enter checks the form and sends it (a
 * wrong field keeps the form open with the reason beside it); Esc declines.
 */
import { Text } from "ink";
import { memo, useMemo, useRef, useState } from "react";
import type { ReactElement } from "react";
import {
    type McpElicitation,
    type McpElicitationAnswer,
    type McpFormField,
    type McpFormValue,
    formFields,
    initialValue,
    validateForm,
} from "../../tools/mcp/client-requests";
import { useGuardState } from "../hooks/use-key-gate";
import { useInputKeys } from "../hooks/use-raw-input";
import type { KeyGate } from "../input/key-gate";
import { guardHint, isPlainText } from "./review-menu";
import { sanitizeLine } from "./diff-review";
import { KeyHints, ReviewFrame } from "./review-frame";
import { useTheme } from "../use-theme";

export interface ElicitationReviewProps {
    request: McpElicitation;
    /** Total columns, border included. */
    width: number;
    borderColor?: string;
    active?: boolean;
    /** The App's key gate: keys count only while it gives them to the form. */
    gate?: KeyGate;
    onAnswer?: (answer: McpElicitationAnswer) => void;
}

type Values = Record<string, McpFormValue>;

/** The field's value as one row of text. */
function shown(field: McpFormField, value: McpFormValue | undefined): string {
    if (field.kind === "boolean") return value === true ? "[x] yes" : "[ ] no";
    if (field.kind === "enum") {
        const index = typeof value === "number" ? value : -1;
        const label = (field.optionLabels ?? field.options)?.[index];
        return label === undefined ? "‹ choose ›" : `‹ ${label} ›`;
    }
    return typeof value === "string" ? value : "";
}

function ElicitationReviewImpl(props: ElicitationReviewProps): ReactElement {
    const theme = useTheme();
    const { request, width, active = false } = props;
    const fields = useMemo(() => {
        const form = formFields(request.requestedSchema);
        return form.ok ? form.fields : [];
    }, [request.requestedSchema]);
    const [values, setValues] = useState<Values>(() =>
        Object.fromEntries(fields.map((f) => [f.name, initialValue(f)]))
    );
    const [focus, setFocus] = useState(0);
    const guard = useGuardState(props.gate);
    const guardNote = guardHint(guard.state, guard.diverted);
    const [error, setError] = useState<{ field: string; text: string } | null>(null);
    // Keys of one input string arrive before a render: read and write through refs.
    const valuesRef = useRef(values);
    const focusRef = useRef(focus);
    const update = (next: Values): void => {
        valuesRef.current = next;
        setValues(next);
    };
    const moveTo = (to: number): void => {
        focusRef.current = to;
        setFocus(to);
    };
    useInputKeys(
        (input, key) => {
            const owner = props.gate?.owner() ?? "review";
            // Keys that came several at once (a paste) are only ever text for a field.
            if (owner === "review-text" && !isPlainText(input, key)) return;
            if (owner !== "review" && owner !== "review-text") return;
            const at = focusRef.current;
            const field = fields[at];
            const value = field ? valuesRef.current[field.name] : undefined;
            const set = (v: McpFormValue): void => {
                if (!field) return;
                update({ ...valuesRef.current, [field.name]: v });
                if (error?.field === field.name) setError(null);
            };
            if (key.escape) return props.onAnswer?.({ action: "decline" });
            if (key.return) {
                const checked = validateForm(fields, valuesRef.current);
                if (checked.ok)
                    return props.onAnswer?.({ action: "accept", content: checked.content });
                setError({ field: checked.field, text: checked.error });
                moveTo(
                    Math.max(
                        0,
                        fields.findIndex((f) => f.name === checked.field)
                    )
                );
                return;
            }
            const last = Math.max(0, fields.length - 1);
            if (key.upArrow || (key.tab && key.shift)) return moveTo(at === 0 ? last : at - 1);
            if (key.downArrow || key.tab) return moveTo(at === last ? 0 : at + 1);
            if (!field || key.ctrl || key.meta) return;
            if (field.kind === "boolean") {
                if (input === " ") set(value !== true);
                return;
            }
            if (field.kind === "enum") {
                const count = field.options?.length ?? 0;
                const index = typeof value === "number" ? value : -1;
                if (key.leftArrow) set(index <= 0 ? count - 1 : index - 1);
                else if (key.rightArrow || input === " ") set((index + 1) % count);
                return;
            }
            const text = typeof value === "string" ? value : "";
            if (key.backspace || key.delete) set(text.slice(0, -1));
            else if (input && [...input].every((ch) => ch >= " " && ch !== "\x7f"))
                set(text + input);
        },
        { isActive: active }
    );
    const inner = Math.max(10, width - 4);
    return (
        <ReviewFrame
            width={width}
            badge={{ text: "FORM", color: "warning" }}
            borderColor={props.borderColor}
            title={`MCP server ${sanitizeLine(request.server)} asks`}
        >
            {request.message.split("\n").map((line, i) => (
                <Text key={`m-${i}`} wrap="wrap">
                    {sanitizeLine(line)}
                </Text>
            ))}
            {fields.map((field, i) => {
                const current = i === focus;
                const wrong = error?.field === field.name ? error.text : undefined;
                const label = `${current ? "› " : "  "}${sanitizeLine(field.label)}${field.required ? " *" : ""}: `;
                return (
                    <Text key={field.name} wrap="truncate-end">
                        <Text color={current ? theme.accent : undefined} bold={current}>
                            {label}
                        </Text>
                        {sanitizeLine(shown(field, values[field.name])).slice(-inner)}
                        {current &&
                        (field.kind === "string" ||
                            field.kind === "number" ||
                            field.kind === "integer") ? (
                            <Text inverse> </Text>
                        ) : null}
                        {wrong ? <Text color={theme.error}> ✗ {wrong}</Text> : null}
                        {!wrong && current && field.description ? (
                            <Text color={theme.dim}> {sanitizeLine(field.description)}</Text>
                        ) : null}
                    </Text>
                );
            })}
            <Text color={theme.dim}>* required · ↑/↓ field · Space toggles · ←/→ choose</Text>
            {guardNote ? <Text color={theme.dim}>{guardNote}</Text> : null}
            {/* The keys show once they act on the form (tests wait for "[Enter] submit"). */}
            {guard.state === "open" ? (
                <KeyHints
                    hints={[
                        { key: "Enter", label: "submit", color: "success" },
                        { key: "Esc", label: "decline", color: "error" },
                        { key: "Ctrl+C", label: "cancel", color: "dim" },
                    ]}
                />
            ) : null}
        </ReviewFrame>
    );
}

export const ElicitationReview = memo(ElicitationReviewImpl);
