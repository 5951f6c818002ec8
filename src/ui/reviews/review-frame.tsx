/**
 * What the review boxes share: the rounded border (pulsed by the parent while
 * pending), the title row with its status badge, and the coloured keys line.
 */
import { Box, Text } from "ink";
import { Fragment } from "react";
import type { ReactElement, ReactNode } from "react";
import type { ThemeColor } from "../theme";
import { useTheme } from "../use-theme";

export interface ReviewBadge {
    text: string;
    color: ThemeColor;
}

export interface ReviewFrameProps {
    /** Total columns, border included. */
    width: number;
    badge: ReviewBadge;
    /** Border colour (resolved); defaults to the badge's. */
    borderColor?: string;
    /** The title row's left side, drawn bold and cut at the end. */
    title: ReactNode;
    children?: ReactNode;
}

export function ReviewFrame(props: ReviewFrameProps): ReactElement {
    const { width, badge } = props;
    const theme = useTheme();
    return (
        <Box
            flexDirection="column"
            borderStyle="round"
            borderColor={props.borderColor ?? theme[badge.color]}
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
                    <Text color={theme[badge.color]} bold>
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
    color: ThemeColor;
}

/** "[a] accept  [r] reject": each key bold in its colour, two spaces between. */
export function KeyHints({ hints }: { hints: readonly KeyHint[] }): ReactElement {
    const theme = useTheme();
    return (
        <Text wrap="wrap">
            {hints.map((hint, i) => (
                <Fragment key={hint.key}>
                    {i > 0 ? "  " : null}
                    <Text color={theme[hint.color]} bold>
                        [{hint.key}]
                    </Text>{" "}
                    {hint.label}
                </Fragment>
            ))}
        </Text>
    );
}
