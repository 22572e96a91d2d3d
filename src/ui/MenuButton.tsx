/**
 * A button that opens a menu below it, aligned to its end (WAI-ARIA's menu button pattern): the
 * shell's user menu. Arrow keys, Home and End move between the items, Escape closes and gives the
 * focus back to the button, Tab or a press outside closes. The shell's header fixes where it
 * opens, so it needs no positioning engine: Mantine's Menu would bring its popover and the
 * Floating UI library to every signed-in screen.
 */
import { createContext, useCallback, useContext, useEffect, useId, useRef, useState, type ComponentPropsWithoutRef, type KeyboardEvent, type ReactNode } from 'react';
import { UnstyledButton } from '@mantine/core';
import classes from './MenuButton.module.css';

const CloseMenu = createContext<() => void>(() => undefined);

export function MenuButton({ label, target, children, align = 'end', disabled = false }: {
  label: string; target: ReactNode; children: ReactNode;
  /** which edge of the button the menu lines up with */
  align?: 'start' | 'end';
  disabled?: boolean;
}) {
  const [opened, setOpened] = useState(false);
  const id = useId();
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const close = useCallback((refocus = true) => {
    setOpened(false);
    if (refocus) button.current?.focus();
  }, []);
  const items = () => [...(menu.current?.querySelectorAll<HTMLElement>('[role="menuitem"]:not(:disabled), [role="menuitemcheckbox"]:not(:disabled)') ?? [])];

  useEffect(() => {
    if (!opened) return;
    items()[0]?.focus();
    const outside = (e: PointerEvent) => {
      const target = e.target as Node;
      if (!menu.current?.contains(target) && !button.current?.contains(target)) close(false);
    };
    document.addEventListener('pointerdown', outside);
    return () => document.removeEventListener('pointerdown', outside);
  }, [opened, close]);

  const onMenuKey = (e: KeyboardEvent) => {
    const list = items();
    const at = list.indexOf(document.activeElement as HTMLElement);
    const focus = (i: number) => {
      e.preventDefault();
      list[(i + list.length) % list.length]?.focus();
    };
    if (e.key === 'ArrowDown') focus(at + 1);
    else if (e.key === 'ArrowUp') focus(at - 1);
    else if (e.key === 'Home') focus(0);
    else if (e.key === 'End') focus(list.length - 1);
    else if (e.key === 'Escape') { e.preventDefault(); close(); }
    else if (e.key === 'Tab') close(false);
  };

  return (
    <div className={classes.root}>
      <UnstyledButton
        ref={button} id={`${id}-button`} aria-label={label} aria-haspopup="menu" aria-expanded={opened} disabled={disabled}
        aria-controls={opened ? `${id}-menu` : undefined}
        onClick={() => setOpened((o) => !o)}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown' && !opened) { e.preventDefault(); setOpened(true); }
        }}
      >
        {target}
      </UnstyledButton>
      {opened && (
        <div ref={menu} id={`${id}-menu`} role="menu" aria-labelledby={`${id}-button`} className={classes.dropdown} data-align={align} onKeyDown={onMenuKey}>
          <CloseMenu.Provider value={close}>{children}</CloseMenu.Provider>
        </div>
      )}
    </div>
  );
}

/** An item of the menu; choosing it closes the menu. */
/** An item; with `checked`, an item that is on or off (a menuitemcheckbox). */
export function MenuItem({ leftSection, onClick, children, checked, ...rest }: Omit<ComponentPropsWithoutRef<'button'>, 'type' | 'role'> & { leftSection?: ReactNode; checked?: boolean }) {
  const close = useContext(CloseMenu);
  return (
    <button
      {...rest} type="button" role={checked === undefined ? 'menuitem' : 'menuitemcheckbox'} aria-checked={checked} tabIndex={-1} className={classes.item}
      onClick={(e) => { close(); onClick?.(e); }}
    >
      {leftSection && <span className={classes.itemSection}>{leftSection}</span>}
      <span className={classes.itemLabel}>{children}</span>
    </button>
  );
}

/** Text between the items: who is signed in, or what the items below are. */
export function MenuLabel({ children }: { children: ReactNode }) {
  return <div className={classes.label}>{children}</div>;
}

export function MenuDivider() {
  return <div role="separator" className={classes.divider} />;
}
