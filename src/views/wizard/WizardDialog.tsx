/**
 * The Formula Wizard's dialog (SPEC.md section 2): open while the query holds wizardFormulaId and
 * wizardStep, over whatever screen is below (the shell stays mounted). The address follows the
 * step, so back, forward and reload resume at it; the wizard machine decides where a step may go
 * and asks before unsaved changes are left. The stepper marks done the steps that are set up
 * (isStepMarkedDone), before or after the open one.
 */
import { useEffect, useMemo, useRef, type ComponentType } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { useActorRef, useSelector } from '@xstate/react';
import { Alert, Button, Group, Modal, Skeleton, Stack, Stepper, Text, VisuallyHidden } from '@mantine/core';
import { IconCheck } from '@tabler/icons-react';
import { useMediaQuery } from '@mantine/hooks';
import { findDialog } from '../../domain/screens.ts';
import { ARCHIVED_READ_ONLY } from '../../domain/errors.ts';
import { formulaDisplayName } from '../../domain/formula/formula.ts';
import { isStepMarkedDone, WIZARD_STEP_TITLES, type WizardStep } from '../../domain/formula/wizard.ts';
import { can } from '../../domain/roles.ts';
import { isCustomRoutingOn } from '../../machines/flags.ts';
import type { StepEditorRef } from '../../machines/stepEditor.ts';
import { stepsOf, wizardMachine } from '../../machines/wizard.ts';
import { useAppActors, useFlagsActor } from '../shell/actors.tsx';
import type { StepProps } from './step.tsx';
import { wizardSearch } from './wizardSearch.ts';
import { STEP_SCREENS } from './stepScreens.tsx';

/** a step before the open one that is not set up looks as a step still to do */
const NOT_SET_UP_ICON = { backgroundColor: 'var(--mantine-color-default)', borderColor: 'var(--mantine-color-default-border)', color: 'var(--mantine-color-dimmed)' };
/** a step after the open one that is set up looks done */
const SET_UP_ICON = { backgroundColor: 'var(--mantine-primary-color-filled)', borderColor: 'var(--mantine-primary-color-filled)', color: 'var(--mantine-color-white)' };

export interface WizardHostProps {
  /** tests hand in their own step screens, and the wizard over their fakes (wizardOver) */
  screens?: Record<WizardStep, ComponentType<StepProps>>;
  logic?: typeof wizardMachine;
}

/** Renders the wizard when the query opens it. */
export function WizardHost(props: WizardHostProps) {
  const location = useLocation();
  const dialog = findDialog(location.search);
  if (dialog?.id !== 'formulaWizard') return null;
  // a wizard for another formula is another wizard
  return <WizardDialog key={dialog.params.wizardFormulaId} formulaId={dialog.params.wizardFormulaId!} step={dialog.params.wizardStep!} {...props} />;
}

function WizardDialog({ formulaId, step: urlStep, screens = STEP_SCREENS, logic = wizardMachine }: WizardHostProps & { formulaId: string; step: string }) {
  const navigate = useNavigate();
  const location = useLocation();
  const { auth } = useAppActors();
  const policies = useSelector(auth, (s) => s.context.user?.policies ?? {});
  const flags = useFlagsActor();
  const customRouting = useSelector(flags, (s) => isCustomRoutingOn(s, formulaId));
  const wizard = useActorRef(logic, { input: { formulaId, step: urlStep, customRouting, mayReadObjects: can(policies, 'datasource', 'edit') } });
  const state = useSelector(wizard, (s) => s);
  const editor = useSelector(wizard, (s) => s.children.step as StepEditorRef | undefined);
  const small = useMediaQuery('(max-width: 48em)');
  const { formula, step, error } = state.context;
  const steps = useMemo(() => stepsOf(state.context), [state.context]);
  const stepper = useRef<HTMLDivElement>(null);

  useEffect(() => { wizard.send({ type: 'flags.changed', customRouting }); }, [wizard, customRouting]);

  // the address follows the step (a new history entry per step, so back and forward walk them);
  // while unsaved changes are asked about it waits, and Stay after Back brings it back to the step
  const asking = state.matches({ open: 'confirmingLeave' });
  const open = state.matches('open');
  useEffect(() => {
    if (open && !asking && urlStep !== step) navigate({ pathname: location.pathname, search: wizardSearch(location.search, formulaId, step) });
    // only the machine's step drives this; the address's own changes come in below
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open, asking, step]);
  // back and forward in the browser move the wizard (it may first ask about unsaved changes).
  // Keyed by the location itself, not the step it names: the router renders in transitions, so a
  // Back pressed just after a save can land on the step the last render already showed
  useEffect(() => {
    if (open && urlStep !== step) wizard.send({ type: 'step.goto', step: urlStep });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [location]);
  useEffect(() => {
    if (state.status === 'done') navigate({ pathname: location.pathname, search: wizardSearch(location.search, null, null) });
  }, [state.status, navigate, location.pathname, location.search]);
  // leaving the page (reload, another site) with unsaved changes asks first
  useEffect(() => {
    if (!state.context.dirty) return undefined;
    const ask = (e: BeforeUnloadEvent) => { e.preventDefault(); };
    window.addEventListener('beforeunload', ask);
    return () => window.removeEventListener('beforeunload', ask);
  }, [state.context.dirty]);

  // on a phone the steps scroll sideways in one row: the open one is kept in sight
  useEffect(() => {
    if (!small) return;
    stepper.current?.querySelector('[aria-current="step"]')?.scrollIntoView?.({ block: 'nearest', inline: 'center' });
  }, [small, step, open]);

  // closed: the address loses the wizard in the effect above; nothing stays on screen meanwhile
  if (state.status === 'done') return null;
  const Screen = screens[step];
  const title = formula ? `Formula Wizard: ${formulaDisplayName(formula)}` : 'Formula Wizard';
  // an archived formula is read-only (the server refuses its edits): unarchived, it can change again
  const archived = !!formula?.archivedOn;

  return (
    <>
      <Modal
        opened
        onClose={() => wizard.send({ type: 'wizard.close' })}
        title={title}
        size="90rem"
        fullScreen={small}
        closeButtonProps={{ 'aria-label': 'Close the wizard' }}
        data-testid="formula-wizard"
      >
        {state.matches('loading') && <Stack aria-label="Loading the formula"><Skeleton h={28} /><Skeleton h={200} /></Stack>}
        {state.matches('failed') && (
          <Alert color="red" role="alert" title="The formula could not be opened">
            <Text size="sm">{error}</Text>
            <Group mt="sm">
              <Button size="xs" onClick={() => wizard.send({ type: 'retry' })}>Try again</Button>
              <Button size="xs" variant="default" onClick={() => wizard.send({ type: 'wizard.close' })}>Close</Button>
            </Group>
          </Alert>
        )}
        {formula && open && (
          <Group align="flex-start" wrap={small ? 'wrap' : 'nowrap'} gap={small ? 'xs' : 'xl'}>
            <Stepper
              ref={stepper}
              active={steps.indexOf(step)}
              orientation={small ? 'horizontal' : 'vertical'}
              size="sm"
              onStepClick={(i) => wizard.send({ type: 'step.goto', step: steps[i]! })}
              aria-label="Wizard steps"
              miw={small ? undefined : 220}
              w={small ? '100%' : undefined}
              styles={small ? {
                // positioned, so a step's hidden ', set up' is placed and clipped within the row, never widening the page
                steps: { flexWrap: 'nowrap', overflowX: 'auto', paddingBottom: 'var(--mantine-spacing-xs)', position: 'relative' },
                step: { flexShrink: 0 },
                separator: { flexShrink: 0, minWidth: 24 },
              } : undefined}
            >
              {steps.map((s, i) => {
                // the stepper checks a step by its place before the open one; only a step set up is marked done
                const done = isStepMarkedDone(s, formula);
                const before = i < steps.indexOf(step);
                return (
                  <Stepper.Step
                    key={s}
                    label={<><span>{WIZARD_STEP_TITLES[s]}</span>{done && <VisuallyHidden>, set up</VisuallyHidden>}</>}
                    aria-current={s === step ? 'step' : undefined}
                    data-set-up={done}
                    completedIcon={done ? undefined : i + 1}
                    icon={done ? <IconCheck size="60%" aria-hidden /> : undefined}
                    styles={before && !done ? { stepIcon: NOT_SET_UP_ICON, stepCompletedIcon: { color: 'inherit' } }
                      : !before && done && s !== step ? { stepIcon: SET_UP_ICON } : undefined}
                  />
                );
              })}
            </Stepper>
            <Stack style={{ flex: 1, minWidth: 0 }} data-step={step}>
              {/* the phone's row of steps shows only a few of them */}
              {small && <Text size="xs" c="dimmed">Step {steps.indexOf(step) + 1} of {steps.length}</Text>}
              <Text component="h3" fw={600} size="lg">{WIZARD_STEP_TITLES[step]}</Text>
              {archived && <Alert color="gray" title="Archived">{ARCHIVED_READ_ONLY}</Alert>}
              <Screen
                key={step}
                step={step}
                editor={editor}
                formula={formula}
                customRouting={state.context.customRouting}
                canEdit={!archived && can(policies, 'formula', 'edit')}
                onDirtyChange={(dirty) => wizard.send({ type: 'step.dirty', dirty })}
                onSaved={(updated) => wizard.send({ type: 'step.saved', formula: updated })}
                onFormulaChange={(updated) => wizard.send({ type: 'formula.changed', formula: updated })}
                onBack={steps.indexOf(step) > 0 ? () => wizard.send({ type: 'step.back' }) : undefined}
                onGoTo={(to) => wizard.send({ type: 'step.goto', step: to })}
              />
            </Stack>
          </Group>
        )}
      </Modal>
      <Modal
        opened={asking}
        onClose={() => wizard.send({ type: 'leave.cancel' })}
        title="Unsaved changes"
        data-testid="wizard-unsaved"
      >
        <Text>{WIZARD_STEP_TITLES[step]} has changes that are not saved. Leave them?</Text>
        <Group justify="flex-end" mt="md">
          <Button variant="default" onClick={() => wizard.send({ type: 'leave.cancel' })}>Stay</Button>
          <Button color="red" onClick={() => wizard.send({ type: 'leave.confirm' })}>Leave without saving</Button>
        </Group>
      </Modal>
    </>
  );
}
