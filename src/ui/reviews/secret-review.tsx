/**
 * A program in a terminal asks for a password: the user types it into a
 * masked field (one • per character, never the text), Enter sends it to
 * that process only, Esc declines. The typed text lives in a ref of this
 * component until it is sent: never in React state, the composer, its
 * history, the transcript or the conversation's records.
 */
import { Text } from "ink";
import { memo, useRef, useState } from "react";
import type { ReactElement } from "react";
import type { ProcessInfo } from "../../tools/processes/types";
import { sanitizeLine } from "../../util/display-line";
import { oneLine } from "../../util/short-text";
import { useGuardState } from "../hooks/use-key-gate";
import { useInputKeys } from "../hooks/use-raw-input";
import type { KeyGate } from "../input/key-gate";
import { useTheme } from "../use-theme";
import { KeyHints, ReviewFrame } from "./review-frame";
import { guardHint, isPlainText } from "./review-menu";

/** What the field shows for each typed character. */
export const MASK = "•";

export interface SecretReviewProps {
    process: ProcessInfo;
    prompt: string;
    /** Total columns, border included. */
    width: number;
    borderColor?: string;
    active?: boolean;
    /** The App's key gate: keys typed as the field appears go to the draft, not into it. */
    gate?: KeyGate;
    /** The typed text, or null when declined. */
    onAnswer?: (secret: string | null) => void;
}

function SecretReviewImpl(props: SecretReviewProps): ReactElement {
    const theme = useTheme();
    const { process, width, active = false } = props;
    const secret = useRef("");
    // Only how many characters there are is drawn.
    const [length, setLength] = useState(0);
    const guard = useGuardState(props.gate);
    const guardNote = guardHint(guard.state, guard.diverted);
    const set = (text: string): void => {
        secret.current = text;
        setLength([...text].length);
    };
    useInputKeys(
        (input, key) => {
            const owner = props.gate?.owner() ?? "review";
            // A paste is only ever text for the field.
            if (owner === "review-text" && !isPlainText(input, key)) return;
            if (owner !== "review" && owner !== "review-text") return;
            if (key.escape) {
                set("");
                return props.onAnswer?.(null);
            }
            if (key.return) {
                const typed = secret.current;
                set("");
                return props.onAnswer?.(typed);
            }
            if (key.backspace || key.delete) return set([...secret.current].slice(0, -1).join(""));
            if (key.ctrl && input === "u") return set("");
            if (key.ctrl || key.meta) return;
            if (input && [...input].every((ch) => ch >= " " && ch !== "\x7f"))
                set(secret.current + input);
        },
        { isActive: active }
    );
    const inner = Math.max(10, width - 4);
    const field = MASK.repeat(Math.min(length, Math.max(1, inner - 12)));
    return (
        <ReviewFrame
            width={width}
            badge={{ text: "PASSWORD", color: "warning" }}
            borderColor={props.borderColor}
            title={`${process.id} \`${sanitizeLine(oneLine(process.command, inner))}\` asks for a password`}
        >
            <Text wrap="wrap">{sanitizeLine(oneLine(props.prompt, 200))}</Text>
            <Text wrap="truncate-end">
                <Text color={theme.accent} bold>
                    {"› "}
                </Text>
                {field}
                <Text inverse> </Text>
            </Text>
            <Text color={theme.dim} wrap="wrap">
                Goes to {process.id} only: not to the model, the transcript or any log.
            </Text>
            {guardNote ? <Text color={theme.dim}>{guardNote}</Text> : null}
            {/* The keys show once they act on the field (tests wait for "[Enter] send"). */}
            {guard.state === "open" ? (
                <KeyHints
                    hints={[
                        { key: "Enter", label: "send", color: "success" },
                        { key: "Esc", label: "decline", color: "error" },
                    ]}
                />
            ) : null}
        </ReviewFrame>
    );
}

export const SecretReview = memo(SecretReviewImpl);
