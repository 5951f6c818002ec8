/**
 * An MCP server asks to run one request through the session's model
 * (sampling): the server, its system prompt and messages (their first lines)
 * and the token cap, then the review menu: run it once, or no (Esc goes there).
 */
import { Text } from "ink";
import { memo, useMemo } from "react";
import type { ReactElement } from "react";
import type { McpSamplingRequest } from "../../tools/mcp/client-requests";
import type { KeyGate } from "../input/key-gate";
import { sanitizeLine } from "./diff-review";
import { ReviewFrame } from "./review-frame";
import { ReviewMenu } from "./review-menu";
import { samplingOptions } from "../../agent/approval-menu";
import { useTheme } from "../use-theme";

export interface SamplingReviewProps {
    request: McpSamplingRequest;
    /** Total columns, border included. */
    width: number;
    /** Rows the messages may take (default 12). */
    maxLines?: number;
    borderColor?: string;
    active?: boolean;
    /** The App's key gate (the menu's keys count only while it gives them). */
    gate?: KeyGate;
    onDecide?: (approved: boolean) => void;
}

/** The request's text as labelled lines, at most `max` of them (the last says how many more). */
export function samplingLines(request: McpSamplingRequest, max: number): string[] {
    const lines: string[] = [];
    const add = (label: string, text: string): void => {
        const rows = text.split("\n");
        lines.push(`${label}${rows[0] ?? ""}`);
        for (const row of rows.slice(1)) lines.push(`  ${row}`);
    };
    if (request.systemPrompt) add("system: ", request.systemPrompt);
    for (const message of request.messages) add(`${message.role}: `, message.text);
    if (lines.length <= max) return lines;
    const kept = lines.slice(0, Math.max(1, max - 1));
    return [...kept, `… ${lines.length - kept.length} more lines`];
}

function SamplingReviewImpl(props: SamplingReviewProps): ReactElement {
    const theme = useTheme();
    const { request, width, active = false } = props;
    const options = useMemo(() => samplingOptions(), []);
    const capped =
        request.requestedMaxTokens === undefined
            ? `up to ${request.maxTokens} tokens`
            : `up to ${request.maxTokens} tokens (it asked for ${request.requestedMaxTokens})`;
    return (
        <ReviewFrame
            width={width}
            badge={{ text: "SAMPLING", color: "warning" }}
            borderColor={props.borderColor}
            title={`MCP server ${sanitizeLine(request.server)} asks to use the model`}
        >
            {samplingLines(request, Math.max(2, props.maxLines ?? 12)).map((line, i) => (
                <Text key={i} wrap="truncate-end">
                    {sanitizeLine(line)}
                </Text>
            ))}
            <Text color={theme.dim}>
                One request, no tools, {capped}; it counts in this session's cost.
            </Text>
            <ReviewMenu
                options={options}
                active={active}
                gate={props.gate}
                onAnswer={(approved) => props.onDecide?.(approved)}
            />
        </ReviewFrame>
    );
}

export const SamplingReview = memo(SamplingReviewImpl);
