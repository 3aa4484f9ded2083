t m(){return; @ while(1);}
