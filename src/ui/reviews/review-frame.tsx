/**
 * What the review boxes share: the rounded border (pulsed by the parent while
 * pending), the title row with its status badge, and the coloured keys line.
 */
import { Box, Text } from "ink";
import { Fragment } from "react";
import type { ReactElement, ReactNode } from "react";

export interface ReviewBadge {
    text: string;
    color: string;
}

export interface ReviewFrameProps {
    /** Total columns, border included. */
    width: number;
    badge: ReviewBadge;
    /** Border colour; defaults to the badge's. */
    borderColor?: string;
    /** The title row's left side, drawn bold and cut at the end. */
    title: ReactNode;
    children?: ReactNode;
}

export function ReviewFrame(props: ReviewFrameProps): ReactElement {
    const { width, badge } = props;
    return (
        <Box
            flexDirection="column"
            borderStyle="round"
            borderColor={props.borderColor ?? badge.color}
            paddingX={1}
            width={width}
            flexShrink={0}
        >
            <Box width={Math.max(1, width - 4)}>
                <Box flexGrow={1} flexShrink={1}>
                    <Text bold wrap="truncate-end">
                        {props.title}
                    </Text>
                </Box>
                <Box flexShrink={0}>
                    <Text color={badge.color} bold>
                        {" "}
                        {badge.text}
                    </Text>
                </Box>
            </Box>
            {props.children}
        </Box>
    );
}

export interface KeyHint {
    key: string;
    label: string;
    color: string;
}

/** "[a] accept  [r] reject": each key bold in its colour, two spaces between. */
export function KeyHints({ hints }: { hints: readonly KeyHint[] }): ReactElement {
    return (
        <Text wrap="wrap">
            {hints.map((hint, i) => (
                <Fragment key={hint.key}>
                    {i > 0 ? "  " : null}
                    <Text color={hint.color} bold>
                        [{hint.key}]
                    </Text>{" "}
                    {hint.label}
                </Fragment>
            ))}
        </Text>
    );
}
