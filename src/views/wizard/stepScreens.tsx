/** The screen of every wizard step, typed by the step list: a step without a screen does not compile. */
import type { ComponentType } from 'react';
import type { WizardStep } from '../../domain/formula/wizard.ts';
import type { StepProps } from './step.tsx';
import { AdditionalSettingsStep } from './steps/AdditionalSettingsStep.tsx';
import { CustomRoutingStep } from './steps/CustomRoutingStep.tsx';
import { DataSourcesStep } from './steps/DataSourcesStep.tsx';
import { FormulaTypeStep } from './steps/FormulaTypeStep.tsx';
import { MappingStep } from './steps/MappingStep.tsx';
import { MatchingStep } from './steps/MatchingStep.tsx';
import { ProcessingStep } from './steps/ProcessingStep.tsx';
import { ReviewStep } from './steps/ReviewStep.tsx';
import { RoutingStep } from './steps/RoutingStep.tsx';
import { SchedulingStep } from './steps/SchedulingStep.tsx';

export const STEP_SCREENS: Record<WizardStep, ComponentType<StepProps>> = {
  'data-sources': DataSourcesStep,
  'formula-types': FormulaTypeStep,
  'additional-settings-source': (props) => <AdditionalSettingsStep {...props} role="source" />,
  'additional-settings-destination': (props) => <AdditionalSettingsStep {...props} role="destination" />,
  'mapping': MappingStep,
  'matching': MatchingStep,
  'routing': RoutingStep,
  'custom-routing': CustomRoutingStep,
  'scheduling': SchedulingStep,
  'review': ReviewStep,
  'processing': ProcessingStep,
};
