import { nginxRollouts } from './nginx-rollouts.js';

// the same nginx reached over SSH: its files, nginx -t, the reload and ps all there
nginxRollouts({
  subnet: '127.0.186',
  overSsh: true,
  title: 'a rollout through nginx on its own host, over SSH',
});
