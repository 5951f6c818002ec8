/**
 * `/costs`: a centred dialog with the session's and all-time spend, grouped
 * by provider then model, with tokens, USD, provider subtotals and totals.
 * Esc or Q closes it.
 */
import { Box, Text, useInput } from "ink";
import { memo, useMemo } from "react";
import type { ReactElement } from "react";
import { formatCost } from "../../providers/catalogue";
import { useTheme } from "../use-theme";

/** Spend on one model (one row of the breakdown). */
export interface CostRow {
    /** "anthropic", "openai", or a custom provider's name. */
    provider: string;
    model: string;
    inputTokens: number;
    outputTokens: number;
    costUsd: number;
    /** Responses of a model without a price: their cost is unknown, not 0. */
    unpricedRequests?: number;
}

export interface CostsDialogProps {
    session: readonly CostRow[];
    allTime: readonly CostRow[];
    /** Terminal columns; the dialog is centred within them. */
    width: number;
    /** Listen for Esc / Q. */
    active?: boolean;
    onClose?: () => void;
}

interface ProviderGroup {
    provider: string;
    rows: CostRow[];
    inputTokens: number;
    outputTokens: number;
    costUsd: number;
}

const PROVIDER_NAMES: Record<string, string> = { anthropic: "Anthropic", openai: "OpenAI" };

export function providerName(provider: string): string {
    return PROVIDER_NAMES[provider] ?? provider;
}

/** 950 → "950", 42_500 → "42.5K", 1_200_000 → "1.2M". */
export function formatTokens(tokens: number): string {
    if (tokens < 1000) return String(Math.round(tokens));
    if (tokens < 1_000_000) return `${trimZero((tokens / 1000).toFixed(1))}K`;
    return `${trimZero((tokens / 1_000_000).toFixed(1))}M`;
}

function trimZero(text: string): string {
    return text.endsWith(".0") ? text.slice(0, -2) : text;
}

/** Rows grouped by provider (costliest first), models costliest first. */
export function groupCosts(rows: readonly CostRow[]): ProviderGroup[] {
    const groups = new Map<string, ProviderGroup>();
    for (const row of rows) {
        let group = groups.get(row.provider);
        if (!group) {
            group = {
                provider: row.provider,
                rows: [],
                inputTokens: 0,
                outputTokens: 0,
                costUsd: 0,
            };
            groups.set(row.provider, group);
        }
        group.rows.push(row);
        group.inputTokens += row.inputTokens;
        group.outputTokens += row.outputTokens;
        group.costUsd += row.costUsd;
    }
    const out = [...groups.values()];
    for (const group of out) group.rows.sort((a, b) => b.costUsd - a.costUsd);
    return out.sort((a, b) => b.costUsd - a.costUsd || a.provider.localeCompare(b.provider));
}

function Row(props: {
    label: string;
    input: number;
    output: number;
    usd: number;
    inner: number;
    bold?: boolean;
    indent?: number;
    color?: string;
    /** Some of it has no price: shown as "$?" (or "$0.40+?"), never as free. */
    unpriced?: boolean;
}): ReactElement {
    const figures = `${formatTokens(props.input)} in · ${formatTokens(props.output)} out`;
    const theme = useTheme();
    return (
        <Box width={props.inner}>
            <Box flexGrow={1} flexShrink={1} paddingLeft={props.indent ?? 0}>
                <Text bold={props.bold} wrap="truncate-end">
                    {props.label}
                </Text>
            </Box>
            <Box flexShrink={0} paddingLeft={1}>
                <Text color={theme.dim}>{figures}</Text>
            </Box>
            <Box flexShrink={0} width={11} justifyContent="flex-end">
                <Text bold={props.bold} color={props.color}>
                    {props.unpriced
                        ? props.usd > 0
                            ? `${formatCost(props.usd)}+?`
                            : "$?"
                        : formatCost(props.usd)}
                </Text>
            </Box>
        </Box>
    );
}

function Section(props: {
    title: string;
    rows: readonly CostRow[];
    inner: number;
    color: string;
}): ReactElement {
    const groups = useMemo(() => groupCosts(props.rows), [props.rows]);
    const theme = useTheme();
    const unpriced = props.rows.filter((row) => (row.unpricedRequests ?? 0) > 0);
    const total = groups.reduce(
        (sum, g) => ({
            input: sum.input + g.inputTokens,
            output: sum.output + g.outputTokens,
            usd: sum.usd + g.costUsd,
        }),
        { input: 0, output: 0, usd: 0 }
    );
    return (
        <Box flexDirection="column" marginTop={1}>
            <Text bold color={props.color}>
                {props.title}
            </Text>
            {groups.length === 0 ? <Text color={theme.dim}> No usage yet.</Text> : null}
            {groups.map((group) => (
                <Box key={group.provider} flexDirection="column">
                    <Row
                        label={providerName(group.provider)}
                        input={group.inputTokens}
                        output={group.outputTokens}
                        usd={group.costUsd}
                        inner={props.inner}
                        indent={1}
                        bold
                    />
                    {group.rows.map((row) => (
                        <Row
                            key={row.model}
                            label={row.model}
                            input={row.inputTokens}
                            output={row.outputTokens}
                            usd={row.costUsd}
                            inner={props.inner}
                            indent={3}
                            unpriced={(row.unpricedRequests ?? 0) > 0}
                        />
                    ))}
                </Box>
            ))}
            <Row
                label="Total"
                input={total.input}
                output={total.output}
                usd={total.usd}
                inner={props.inner}
                bold
                color={props.color}
                unpriced={unpriced.length > 0}
            />
            {unpriced.length > 0 ? (
                <Text color={theme.dim} wrap="wrap">
                    $?: no price for {unpriced.map((row) => row.model).join(", ")}; add
                    &quot;pricing&quot; to its &quot;models&quot; entry in
                    ~/.config/north/config.json to count it
                </Text>
            ) : null}
        </Box>
    );
}

function CostsDialogImpl(props: CostsDialogProps): ReactElement {
    const theme = useTheme();
    const { width, active = true } = props;
    useInput(
        (input, key) => {
            if (key.escape || input === "q" || input === "Q") props.onClose?.();
        },
        { isActive: active }
    );
    const boxWidth = Math.max(20, Math.min(width - 2, 76));
    const inner = boxWidth - 4;
    return (
        <Box width={width} justifyContent="center" flexShrink={0}>
            <Box
                flexDirection="column"
                borderStyle="round"
                borderColor={theme.border}
                paddingX={1}
                width={boxWidth}
            >
                <Box justifyContent="space-between" width={inner}>
                    <Text bold>Costs</Text>
                    <Text color={theme.dim}>Esc or Q to close</Text>
                </Box>
                <Section
                    title="Session"
                    rows={props.session}
                    inner={inner}
                    color={theme.costSession}
                />
                <Section
                    title="All time"
                    rows={props.allTime}
                    inner={inner}
                    color={theme.costAllTime}
                />
            </Box>
        </Box>
    );
}

export const CostsDialog = memo(CostsDialogImpl);
