/**
 * First start in a project without a profile: learn it now? y runs project
 * learning (read-only), n remembers the answer for this project, Esc asks
 * again next time.
 */
import { Box, Text, useInput } from "ink";
import { memo } from "react";
import type { ReactElement } from "react";

export interface LearningPromptProps {
    width: number;
    borderColor?: string;
    active?: boolean;
    /** true: y, false: n, null: Esc. */
    onAnswer?: (answer: boolean | null) => void;
}

/** The answer a key stands for in a y/n question (learning, trust), or undefined for other keys. */
export function learningPromptKey(
    input: string,
    key: { escape?: boolean }
): boolean | null | undefined {
    if (key.escape) return null;
    if (input === "y" || input === "Y") return true;
    if (input === "n" || input === "N") return false;
    return undefined;
}

function LearningPromptImpl(props: LearningPromptProps): ReactElement {
    const { width, active = false } = props;
    useInput(
        (input, key) => {
            const answer = learningPromptKey(input, key);
            if (answer !== undefined) props.onAnswer?.(answer);
        },
        { isActive: active }
    );
    return (
        <Box
            flexDirection="column"
            borderStyle="round"
            borderColor={props.borderColor ?? "yellow"}
            paddingX={1}
            width={width}
            flexShrink={0}
        >
            <Text bold>Learn this project?</Text>
            <Text wrap="wrap">
                North can explore it now with read-only tools (ten short topics: architecture,
                conventions, build and test commands…) and keep a profile outside the repository.
                The profile is sent with every request; /learn refreshes it later.
            </Text>
            <Text wrap="wrap">
                <Text color="green" bold>
                    [y]
                </Text>{" "}
                learn now{"  "}
                <Text color="red" bold>
                    [n]
                </Text>{" "}
                not for this project{"  "}
                <Text dimColor>Esc: ask next time</Text>
            </Text>
        </Box>
    );
}

export const LearningPrompt = memo(LearningPromptImpl);
