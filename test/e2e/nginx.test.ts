import { nginxRollouts } from './nginx-rollouts.js';

// Debian's nginx on this machine, in front of three lab hosts
nginxRollouts({ subnet: '127.0.170', overSsh: false, title: 'a rollout through nginx' });
