import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { EXIT_CONFIRM_HINT, ExitConfirm } from "../input/exit-keys";

export interface ExitConfirmControl {
    /** "Press Ctrl+C again to exit" while the window is open, else null. */
    hint: string | null;
    /** Ctrl+C at an empty, idle composer: true when this one exits. */
    press(): boolean;
    /** Ctrl+C did something else: the window closes. */
    reset(): void;
}

/** The Ctrl+C exit window with its hint, which one timer takes down when the window closes. */
export function useExitConfirm(now?: () => number): ExitConfirmControl {
    const [confirm] = useState(() => new ExitConfirm(now));
    const [shown, setShown] = useState(false);
    const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
    const stop = useCallback(() => {
        if (timer.current) clearTimeout(timer.current);
        timer.current = null;
    }, []);
    useEffect(() => stop, [stop]);
    const press = useCallback((): boolean => {
        stop();
        if (confirm.press() === "exit") {
            setShown(false);
            return true;
        }
        setShown(true);
        const hideWhenClosed = (): void => {
            timer.current = setTimeout(() => {
                if (confirm.armed()) hideWhenClosed();
                else setShown(false);
            }, confirm.remaining());
        };
        hideWhenClosed();
        return false;
    }, [confirm, stop]);
    const reset = useCallback(() => {
        confirm.reset();
        stop();
        setShown(false);
    }, [confirm, stop]);
    const hint = shown ? EXIT_CONFIRM_HINT : null;
    return useMemo(() => ({ hint, press, reset }), [hint, press, reset]);
}
