/**
 * First start in a project without a profile: learn it now? y runs project
 * learning (read-only), n remembers the answer for this project, Esc (or
 * typing a prompt, see the key gate) asks again next time.
 */
import { Box, Text } from "ink";
import { memo } from "react";
import type { ReactElement } from "react";
import { useGuardState } from "../hooks/use-key-gate";
import { useInputKeys } from "../hooks/use-raw-input";
import type { KeyGate } from "../input/key-gate";
import { useTheme } from "../use-theme";

/** Shown once y and n answer the question (tests and users wait for it). */
export const LEARNING_READY_HINT = "learn now";

export interface LearningPromptProps {
    width: number;
    borderColor?: string;
    active?: boolean;
    /** The App's key gate: the answer keys show once they count (its typing window is over). */
    gate?: KeyGate;
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
    const theme = useTheme();
    const { width, active = false } = props;
    // Per key, in order: what the key gate gives the question is one key at a time.
    useInputKeys(
        (input, key) => {
            const answer = learningPromptKey(input, key);
            if (answer !== undefined) props.onAnswer?.(answer);
        },
        { isActive: active }
    );
    const answersCount = useGuardState(props.gate).state === "open";
    return (
        <Box
            flexDirection="column"
            borderStyle="round"
            borderColor={props.borderColor ?? theme.warning}
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
            {answersCount ? (
                <Text wrap="wrap">
                    <Text color={theme.success} bold>
                        [y]
                    </Text>{" "}
                    {LEARNING_READY_HINT}
                    {"  "}
                    <Text color={theme.error} bold>
                        [n]
                    </Text>{" "}
                    not for this project{"  "}
                    <Text color={theme.dim}>Esc: ask next time</Text>
                </Text>
            ) : (
                <Text color={theme.dim}>typing goes to your draft</Text>
            )}
        </Box>
    );
}

export const LearningPrompt = memo(LearningPromptImpl);
